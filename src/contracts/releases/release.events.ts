import { assertNever } from '../../kernel/es/decider.ts';
import type { DomainEvent } from '../../kernel/es/event.ts';

export type AtomicityMode = 'all_or_nothing' | 'best_effort';
export interface MaintenanceWindow {
  /** Day of week (0 Sunday … 6 Saturday) and HH:MM times, UTC; `end` before `start` runs past midnight. */
  windows: { dow: number; start: string; end: string }[];
}
export interface ReleaseItem {
  collection: string;
  itemId: string;
  targetStatus: string;
  /** Publish this revision's values instead of the item's live state. */
  revisionId?: string | null;
}
export type Outcome = {
  collection: string;
  itemId: string;
  outcome: 'published' | 'skipped' | 'failed';
  reason?: string;
};
export type ReleaseStatus = 'draft' | 'scheduled' | 'published' | 'partially_failed' | 'failed';

export interface ReleaseMeta {
  name: string;
  atomicityMode: AtomicityMode;
  publishAt: string | null;
  maintenanceWindow: MaintenanceWindow | null;
}

/**
 * Who created the release: publishing acts with this principal's rights as they are at publish time. `amr` are the
 * authentication methods of the session that created it (a policy's second-factor requirement is judged on them).
 */
export interface ReleaseAuthor {
  type: 'user' | 'apiKey';
  id: string;
  amr: string[];
}

/** `author` is absent from releases created before it was recorded: `by` and the event's actor name it then. */
export type ReleaseCreated = DomainEvent<
  'ReleaseCreated',
  ReleaseMeta & { releaseId: string; items: ReleaseItem[]; by: string; author?: ReleaseAuthor; at: string }
>;
/** Meta changed and items added or removed (by collection and item id). */
export type ReleaseUpdated = DomainEvent<
  'ReleaseUpdated',
  {
    releaseId: string;
    changes: Partial<ReleaseMeta>;
    added: ReleaseItem[];
    removed: { collection: string; itemId: string }[];
    at: string;
  }
>;
export type ReleaseDeleted = DomainEvent<'ReleaseDeleted', { releaseId: string; at: string }>;
/** A best-effort publish began: its items' outcomes follow one by one, so a crash resumes where it stopped. */
export type ReleasePublishStarted = DomainEvent<
  'ReleasePublishStarted',
  { releaseId: string; items: ReleaseItem[]; by: string; at: string }
>;
export type ReleaseItemPublished = DomainEvent<
  'ReleaseItemPublished',
  { releaseId: string; outcome: Outcome; at: string }
>;
/** The publish ended with this status and these outcomes. */
export type ReleasePublished = DomainEvent<
  'ReleasePublished',
  {
    releaseId: string;
    status: Exclude<ReleaseStatus, 'draft' | 'scheduled'>;
    outcomes: Outcome[];
    by: string;
    at: string;
  }
>;

/**
 * The content scheduler asks for a publish: the release is due (`due`), or a publish a crash cut off is to be
 * finished (`resume`). The release publisher (a reactor) answers with the publish, or with ReleasePublishRefused.
 */
export type ReleasePublishRequested = DomainEvent<
  'ReleasePublishRequested',
  { releaseId: string; reason: 'due' | 'resume'; at: string }
>;
/** A requested publish was refused as a whole (`code`, e.g. ITEM_NOT_FOUND): the release stays as it was. */
export type ReleasePublishRefused = DomainEvent<
  'ReleasePublishRefused',
  { releaseId: string; code: string; at: string }
>;

export type ReleaseEvent =
  | ReleaseCreated
  | ReleaseUpdated
  | ReleaseDeleted
  | ReleasePublishStarted
  | ReleaseItemPublished
  | ReleasePublished
  | ReleasePublishRequested
  | ReleasePublishRefused;

export const RELEASE_EVENT_TYPES = [
  'ReleaseCreated',
  'ReleaseUpdated',
  'ReleaseDeleted',
  'ReleasePublishStarted',
  'ReleaseItemPublished',
  'ReleasePublished',
  'ReleasePublishRequested',
  'ReleasePublishRefused',
] as const;

export const releaseStream = (siteId: string, releaseId: string) => `${siteId}/release/${releaseId}`;
export const itemKey = (i: { collection: string; itemId: string }) => `${i.collection}/${i.itemId}`;

export type ReleaseState =
  | { exists: false }
  | (ReleaseMeta & {
      exists: true;
      deleted: boolean;
      status: ReleaseStatus;
      items: ReleaseItem[];
      /** A best-effort publish in progress: its items and the outcomes recorded so far. */
      publishing: { items: ReleaseItem[]; outcomes: Outcome[]; by: string } | null;
      outcomes: Outcome[];
      /** When the scheduler asked for a publish that has not been answered yet (absent in states folded before). */
      publishRequested?: string | null;
      /** The last requested publish that was refused as a whole, and how many in a row, until the release changes. */
      lastRefusal?: { code: string; at: string; times?: number } | null;
    });

export const initialReleaseState = (): ReleaseState => ({ exists: false });

export const mergeItems = (
  items: ReleaseItem[],
  add: ReleaseItem[],
  remove: { collection: string; itemId: string }[],
) => {
  const gone = new Set(remove.map(itemKey));
  const byKey = new Map(items.filter((i) => !gone.has(itemKey(i))).map((i) => [itemKey(i), i]));
  for (const i of add) byKey.set(itemKey(i), i);
  return [...byKey.values()];
};

/** A release folded from its events (the decider's state, and the read model's). */
export function evolveRelease(s: ReleaseState, e: ReleaseEvent): ReleaseState {
  switch (e.type) {
    case 'ReleaseCreated': {
      const { name, atomicityMode, publishAt, maintenanceWindow, items } = e.data;
      return {
        exists: true,
        deleted: false,
        name,
        atomicityMode,
        publishAt,
        maintenanceWindow,
        items,
        status: publishAt ? 'scheduled' : 'draft',
        publishing: null,
        outcomes: [],
        publishRequested: null,
        lastRefusal: null,
      };
    }
    case 'ReleaseUpdated': {
      if (!s.exists) return s;
      const meta = { ...s, ...e.data.changes };
      const status =
        s.status === 'draft' || s.status === 'scheduled' ? (meta.publishAt ? 'scheduled' : 'draft') : s.status;
      return { ...meta, status, items: mergeItems(s.items, e.data.added, e.data.removed), lastRefusal: null };
    }
    case 'ReleaseDeleted':
      return s.exists ? { ...s, deleted: true } : s;
    case 'ReleasePublishStarted':
      return s.exists ? { ...s, publishing: { items: e.data.items, outcomes: [], by: e.data.by } } : s;
    case 'ReleaseItemPublished':
      return s.exists && s.publishing
        ? { ...s, publishing: { ...s.publishing, outcomes: [...s.publishing.outcomes, e.data.outcome] } }
        : s;
    case 'ReleasePublished':
      return s.exists
        ? { ...s, status: e.data.status, outcomes: e.data.outcomes, publishing: null, publishRequested: null }
        : s;
    case 'ReleasePublishRequested':
      return s.exists ? { ...s, publishRequested: e.data.at } : s;
    case 'ReleasePublishRefused':
      return s.exists
        ? {
            ...s,
            publishRequested: null,
            lastRefusal: {
              code: e.data.code,
              at: e.data.at,
              times: s.lastRefusal ? (s.lastRefusal.times ?? 1) + 1 : 1,
            },
          }
        : s;
    default:
      return assertNever(e);
  }
}
