import type { Int8, Json, NullableTimestamp, Timestamp } from '../../src/kernel/db/database.ts';
import type { ItemValues } from '../../src/contracts/items/item.events.ts';
import type { FieldType } from '../../src/contracts/schema/schema.types.ts';

/** One row per item, its values as a JSONB document (DDL in item-documents.projector.ts). */
export interface ItemDocumentsTable {
  site_id: string;
  collection: string;
  id: string;
  data: Json<ItemValues>;
  /** The item stream's version of the last event applied: an older event never overwrites a newer one. */
  version: number;
  created_at: Timestamp;
  created_by: string;
  updated_at: Timestamp;
  updated_by: string;
  deleted_at: NullableTimestamp;
  deleted_by: string | null;
}

/** The type of each field, for the per-field expression indexes (DDL in item-indexes.ts). */
export interface ItemFieldIndexesTable {
  site_id: string;
  collection: string;
  field: string;
  type: FieldType;
}

/** Per collection, a counter bumped by every change: the key of cached counts (DDL in item-counts.ts). */
export interface ItemCollectionChangesTable {
  site_id: string;
  collection: string;
  changes: Int8;
}

declare module '../../src/kernel/db/database.ts' {
  interface DB {
    item_documents: ItemDocumentsTable;
    item_field_indexes: ItemFieldIndexesTable;
    item_collection_changes: ItemCollectionChangesTable;
  }
}
