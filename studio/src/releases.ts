/**
 * The releases and pages screens' pure parts: the items a release adds (a pinned revision or the live state), the
 * schedule (publish time and maintenance windows) as the API takes it, a page's layout JSON and the API's errors at
 * their paths, and a page's public delivery address.
 */
import type { ApiErrorEntry } from './api/client.ts';

export type ReleaseStatus = 'draft' | 'scheduled' | 'published' | 'partially_failed' | 'failed';
export type AtomicityMode = 'all_or_nothing' | 'best_effort';

export interface MaintenanceWindow {
  dow: number;
  start: string;
  end: string;
}

export interface ReleaseItem {
  collection: string;
  itemId: string;
  targetStatus: string;
  revisionId?: string | null;
}

export interface Outcome {
  collection: string;
  itemId: string;
  outcome: 'published' | 'skipped' | 'failed';
  reason?: string;
}

/** A release as `GET /releases/:id` answers it. */
export interface Release {
  id: string;
  name: string;
  atomicityMode: AtomicityMode;
  publishAt: string | null;
  maintenanceWindow: { windows: MaintenanceWindow[] } | null;
  status: ReleaseStatus;
  publishing: boolean;
  items: ReleaseItem[];
  outcomes: Outcome[];
  createdAt: string;
  updatedAt: string;
}

/** Whether a release can still change and be published (a published or failed one is done). */
export const isOpen = (r: Pick<Release, 'status'>): boolean => r.status === 'draft' || r.status === 'scheduled';

/** One item to add: `revisionId` pins that revision's snapshot; empty or null takes the live state at publish. */
export function addItemOf(pick: {
  collection: string;
  itemId: string;
  targetStatus: string;
  revisionId?: string | null;
}): ReleaseItem {
  const item: ReleaseItem = {
    collection: pick.collection,
    itemId: pick.itemId,
    targetStatus: pick.targetStatus.trim() || 'published',
  };
  if (pick.revisionId) item.revisionId = pick.revisionId;
  return item;
}

const HHMM = /^([01]\d|2[0-3]):[0-5]\d$/;

/** Problems of windows before they are sent, by row (the API checks too; this only says it earlier). */
export function windowProblems(windows: MaintenanceWindow[]): Map<number, 'dow' | 'start' | 'end'> {
  const out = new Map<number, 'dow' | 'start' | 'end'>();
  windows.forEach((w, n) => {
    if (!Number.isInteger(w.dow) || w.dow < 0 || w.dow > 6) out.set(n, 'dow');
    else if (!HHMM.test(w.start)) out.set(n, 'start');
    else if (!HHMM.test(w.end)) out.set(n, 'end');
  });
  return out;
}

/**
 * The schedule fields of a PATCH: `publishAt` from a `datetime-local` value (the browser's local time; empty: no
 * time, a draft) and the maintenance windows (none: null, publish whenever due).
 */
export function scheduleBody(
  publishAtLocal: string,
  windows: MaintenanceWindow[],
): { publishAt: string | null; maintenanceWindow: { windows: MaintenanceWindow[] } | null } {
  let publishAt: string | null = null;
  if (publishAtLocal.trim() !== '') {
    const at = new Date(publishAtLocal);
    if (Number.isNaN(at.getTime())) throw new RangeError(`not a date and time: ${publishAtLocal}`);
    publishAt = at.toISOString();
  }
  return { publishAt, maintenanceWindow: windows.length ? { windows: windows.map((w) => ({ ...w })) } : null };
}

/** An ISO time as a `datetime-local` value in the browser's local time (minutes), or '' for none. */
export function toLocalInput(iso: string | null): string {
  if (!iso) return '';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return '';
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

/** Outcomes counted by kind, for the summary above the table. */
export function outcomeCounts(outcomes: Outcome[]): Record<Outcome['outcome'], number> {
  const counts = { published: 0, skipped: 0, failed: 0 };
  for (const o of outcomes) counts[o.outcome] += 1;
  return counts;
}

/** A page as the API returns it. */
export interface PageRecord {
  id: string;
  slug: string;
  title: string;
  status: 'draft' | 'published';
  layoutConfig: Record<string, unknown> | null;
  version: number;
  updatedAt: string;
}

export const SLUG_PATTERN = /^[a-z0-9]+(?:[/_-][a-z0-9]+)*$/;

/** The layout box's text as the API's `layoutConfig`: empty is null; anything but a JSON object is refused here. */
export function parseLayout(text: string): { ok: true; value: Record<string, unknown> | null } | { ok: false } {
  if (text.trim() === '') return { ok: true, value: null };
  try {
    const value: unknown = JSON.parse(text);
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return { ok: false };
    return { ok: true, value: value as Record<string, unknown> };
  } catch {
    return { ok: false };
  }
}

export type PageField = 'slug' | 'title' | 'status' | 'layoutConfig' | '';

/** One API error placed at its field, with the rest of its path (inside the layout: `rows.0.columns.1.width`). */
export interface PlacedError {
  field: PageField;
  at: string;
  message: string;
}

const PAGE_FIELDS = new Set<PageField>(['slug', 'title', 'status', 'layoutConfig']);

/** The API's errors of a page write by the field their path names (after a leading `body`); the others under ''. */
export function placeErrors(errors: ApiErrorEntry[]): PlacedError[] {
  return errors.map((e) => {
    const path = (e.path ?? []).map(String);
    if (path[0] === 'body') path.shift();
    const head = path[0] as PageField | undefined;
    if (head && PAGE_FIELDS.has(head)) return { field: head, at: path.slice(1).join('.'), message: e.message };
    return { field: '', at: path.join('.'), message: e.message };
  });
}

/** The public delivery address of a page (spec "Pages and cache"): origin-relative, the slug's `/` kept. */
export function deliveryPath(site: string, slug: string): string {
  return `/api/v1/deliver/page/${encodeURIComponent(site)}/${slug.split('/').map(encodeURIComponent).join('/')}`;
}
