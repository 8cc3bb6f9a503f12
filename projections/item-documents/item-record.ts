import { sql } from 'kysely';

export interface ItemRow {
  id: string;
  deleted_at?: string | Date | null;
  deleted_by?: string | null;
  data: Record<string, unknown>;
  version: number;
  /** ITEM_COLUMNS read the times as ISO 8601 text (PostgreSQL formats them; Node neither parses nor formats them). */
  created_at: string | Date;
  created_by: string;
  updated_at: string | Date;
  updated_by: string;
}

export type ItemRecord = Record<string, unknown> & { id: string };

/** A timestamptz as the API shows times: ISO 8601 in UTC with milliseconds, as `Date.prototype.toISOString`. */
const iso = (column: string) =>
  `to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as ${column.split('.')[1]}`;

export const ITEM_COLUMNS = sql.raw(
  `a0.id, a0.data, a0.version, ${iso('a0.created_at')}, a0.created_by, ${iso('a0.updated_at')}, a0.updated_by`,
);

export const DELETED_COLUMNS = sql.raw(`, ${iso('a0.deleted_at')}, a0.deleted_by`);

const text = (t: string | Date) => (typeof t === 'string' ? t : t.toISOString());

/**
 * The API shape of an item: its values, then its id and audit fields. It is built in the row's own `data` object
 * (a fresh parse of the document, not shared): a list of 200 records makes no copies of them.
 */
export function toItemRecord(r: ItemRow): ItemRecord {
  const out = r.data as ItemRecord;
  out.id = r.id;
  out.created_at = text(r.created_at);
  out.created_by = r.created_by;
  out.updated_at = text(r.updated_at);
  out.updated_by = r.updated_by;
  if (r.deleted_at !== undefined) {
    out.deleted_at = r.deleted_at === null ? null : text(r.deleted_at);
    out.deleted_by = r.deleted_by ?? null;
  }
  return out;
}
