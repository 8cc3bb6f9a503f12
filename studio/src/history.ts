/**
 * The history screens' pure parts: what a revision changed (old → new per field), main and a named version side by
 * side, the changes a JSON edit of a draft makes, and a `datetime-local` value as the API's `asOf`.
 */

export type Values = Record<string, unknown>;

/** A revision as `GET /items/:collection/:id/revisions` lists it (newest first). */
export interface Revision {
  id: string;
  version: number;
  action: string;
  data: Values;
  delta: Values;
  actor: { type: string; id: string; onBehalfOf?: string };
  committed: boolean;
  timestamp: string;
}

export interface FieldChange {
  field: string;
  before: unknown;
  after: unknown;
  kind: 'added' | 'changed' | 'removed';
}

/** Deep equality of JSON values (object keys in any order; a missing key reads as null, as the service's delta). */
export function sameValue(a: unknown, b: unknown): boolean {
  return canonical(a ?? null) === canonical(b ?? null);
}

function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map((v) => canonical(v ?? null)).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    const entries = Object.entries(value as Values)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
  }
  return JSON.stringify(value ?? null);
}

/**
 * The fields a revision changed, old → new, in field order of the revision's values: the keys of its delta and every
 * key whose value differs from the revision before it (`previous`, null for the first). `id` is never a change, and a
 * key neither state shows (a field the caller may not read) is left out.
 */
export function revisionChanges(revision: Pick<Revision, 'data' | 'delta'>, previous: Values | null): FieldChange[] {
  const before = previous ?? {};
  const after = revision.data;
  const keys = [...new Set([...Object.keys(after), ...Object.keys(before), ...Object.keys(revision.delta)])];
  const out: FieldChange[] = [];
  for (const field of keys) {
    if (field === 'id') continue;
    const inBefore = Object.hasOwn(before, field);
    const inAfter = Object.hasOwn(after, field);
    if (!inBefore && !inAfter) continue;
    const old = inBefore ? before[field] : undefined;
    const next = inAfter ? after[field] : undefined;
    if (sameValue(old, next) && !(previous === null && Object.hasOwn(revision.delta, field))) continue;
    const kind =
      old === undefined || old === null ? 'added' : next === undefined || next === null ? 'removed' : 'changed';
    out.push({ field, before: old, after: next, kind });
  }
  return out;
}

export interface CompareRow {
  field: string;
  main: unknown;
  version: unknown;
  differs: boolean;
}

/** Main and a version side by side: every field of either (id first), marked where they differ. */
export function compareRows(main: Values, version: Values): CompareRow[] {
  const keys = [...new Set([...Object.keys(main), ...Object.keys(version)])];
  keys.sort((a, b) => (a === 'id' ? -1 : b === 'id' ? 1 : 0));
  return keys.map((field) => ({
    field,
    main: main[field],
    version: version[field],
    differs: !sameValue(main[field], version[field]),
  }));
}

/** What a JSON edit of a draft changes: the keys whose value differs from the draft as it was (`id` never). */
export function draftChanges(before: Values, after: Values): Values {
  const out: Values = {};
  for (const k of new Set([...Object.keys(before), ...Object.keys(after)])) {
    if (k === 'id') continue;
    if (!sameValue(before[k], after[k])) out[k] = Object.hasOwn(after, k) ? after[k] : null;
  }
  return out;
}

/** A JSON text as an object of values, or the reason it is not one. */
export function parseDraft(text: string): { ok: true; values: Values } | { ok: false; error: string } {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (e) {
    return { ok: false, error: e instanceof Error ? e.message : String(e) };
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    return { ok: false, error: 'not a JSON object' };
  return { ok: true, values: parsed as Values };
}

/**
 * A `datetime-local` input's value (the browser's local time, minutes or seconds) as the API's `asOf` (ISO 8601 in
 * UTC), or null when it is empty or not a time.
 */
export function asOfParam(local: string): string | null {
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?$/.test(local)) return null;
  const at = new Date(local);
  return Number.isNaN(at.getTime()) ? null : at.toISOString();
}

/** A value as text in a diff or a side-by-side cell: `—` for nothing, JSON for the rest but plain strings. */
export function showField(value: unknown): string {
  if (value === undefined || value === null) return '—';
  if (typeof value === 'string') return value;
  return JSON.stringify(value);
}

/** Which item a history screen shows. */
export interface ItemRef {
  site: string;
  collection: string;
  id: string;
}

/** The API path of an item (or of something under it). */
export const itemPath = (ref: Pick<ItemRef, 'collection' | 'id'>, rest = '') =>
  `/items/${encodeURIComponent(ref.collection)}/${encodeURIComponent(ref.id)}${rest}`;
