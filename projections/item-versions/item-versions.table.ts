import type { Json, Timestamp } from '../../src/kernel/db/database.ts';
import type { ItemValues } from '../../src/contracts/items/item.events.ts';

/** One row per named version of an item (DDL in item-versions.projector.ts). */
export interface ItemVersionsTable {
  site_id: string;
  collection: string;
  item_id: string;
  key: string;
  name: string;
  data: Json<ItemValues>;
  /** How many revisions main had when the version was snapshotted. */
  base: number;
  created_at: Timestamp;
  created_by: string;
  updated_at: Timestamp;
}

declare module '../../src/kernel/db/database.ts' {
  interface DB {
    item_versions: ItemVersionsTable;
  }
}
