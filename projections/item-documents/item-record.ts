import { sql } from 'kysely';

export interface ItemRow {
  id: string;
  deleted_at?: Date | null;
  deleted_by?: string | null;
  data: Record<string, unknown>;
  version: number;
  created_at: Date;
  created_by: string;
  updated_at: Date;
  updated_by: string;
}

export type ItemRecord = Record<string, unknown> & { id: string };

export const ITEM_COLUMNS = sql.raw(
  'a0.id, a0.data, a0.version, a0.created_at, a0.created_by, a0.updated_at, a0.updated_by',
);

/** The API shape of an item: its values, then its id and audit fields. */
export function toItemRecord(r: ItemRow): ItemRecord {
  return {
    ...r.data,
    id: r.id,
    created_at: new Date(r.created_at).toISOString(),
    created_by: r.created_by,
    updated_at: new Date(r.updated_at).toISOString(),
    updated_by: r.updated_by,
    ...(r.deleted_at !== undefined
      ? { deleted_at: r.deleted_at ? new Date(r.deleted_at).toISOString() : null, deleted_by: r.deleted_by ?? null }
      : {}),
  };
}
