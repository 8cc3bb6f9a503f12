import type { Json, NullableJson, Timestamp } from '../../src/kernel/db/database.ts';
import type { ActorRef } from '../../src/kernel/es/event.ts';
import type { ItemValues } from '../../src/contracts/items/item.events.ts';
import type { RevisionAction } from './item-revisions.projector.ts';

/** One row per change of an item (DDL in item-revisions.projector.ts). */
export interface ItemRevisionsTable {
  site_id: string;
  collection: string;
  item_id: string;
  /** The item stream's version of the event. */
  version: number;
  /** The revision's place in the item's history (1, 2, …): events that make no revision leave no gap. */
  ordinal: number;
  revision_id: string;
  action: RevisionAction;
  data: Json<ItemValues>;
  /** The changed keys; null for a creation, whose change is all of `data` (kept once, not twice). */
  delta: NullableJson<ItemValues>;
  actor: Json<ActorRef>;
  at: Timestamp;
}

declare module '../../src/kernel/db/database.ts' {
  interface DB {
    item_revisions: ItemRevisionsTable;
  }
}
