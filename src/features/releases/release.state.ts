import { assertNever } from '../../kernel/es/decider.ts';
import type { Outcome, ReleaseEvent, ReleaseItem, ReleaseMeta, ReleaseStatus } from './release.events.ts';
import { itemKey } from './release.events.ts';

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
      };
    }
    case 'ReleaseUpdated': {
      if (!s.exists) return s;
      const meta = { ...s, ...e.data.changes };
      const status =
        s.status === 'draft' || s.status === 'scheduled' ? (meta.publishAt ? 'scheduled' : 'draft') : s.status;
      return { ...meta, status, items: mergeItems(s.items, e.data.added, e.data.removed) };
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
      return s.exists ? { ...s, status: e.data.status, outcomes: e.data.outcomes, publishing: null } : s;
    default:
      return assertNever(e);
  }
}
