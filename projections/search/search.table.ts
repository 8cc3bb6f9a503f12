/** One row per searchable field of an item that holds text (DDL in search.projector.ts). */
export interface SearchFieldsTable {
  site_id: string;
  collection: string;
  item_id: string;
  field: string;
  /** NFC, capped at MAX_INDEXED_CHARS: what ts_headline shows. */
  text: string;
  /** `A` or `B` (WEIGHT_FACTORS). */
  weight: string;
  /** The item stream's version the row was written at: an older event never overwrites it. */
  version: number;
  /** The item is soft-deleted (its rows stay for a restore, and match nothing). */
  deleted: boolean;
}

declare module '../../src/kernel/db/database.ts' {
  interface DB {
    search_fields: SearchFieldsTable;
  }
}
