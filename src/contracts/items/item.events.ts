import type { DomainEvent } from '../../kernel/es/event.ts';

export type ItemValues = Record<string, unknown>;

/** An item was created with these values (system values `status` and `sort` among them). */
export type ItemCreated = DomainEvent<
  'ItemCreated',
  { collection: string; id: string; values: ItemValues; at: string; by: string }
>;
/** Some values of an item changed; only the changed keys are recorded. */
export type ItemUpdated = DomainEvent<
  'ItemUpdated',
  { collection: string; id: string; changes: ItemValues; at: string; by: string }
>;
/** An item's values were replaced as a whole (PUT): keys not given are gone. */
export type ItemReplaced = DomainEvent<
  'ItemReplaced',
  { collection: string; id: string; values: ItemValues; at: string; by: string }
>;
/** An item was soft-deleted: hidden from reads, kept in the log and the read model. */
export type ItemDeleted = DomainEvent<'ItemDeleted', { collection: string; id: string; at: string; by: string }>;

/**
 * An item was hard-deleted: its document leaves the read models. The log keeps its events (erasing personal data
 * is crypto-shredding's job, not this event's).
 */
export type ItemPurged = DomainEvent<'ItemPurged', { collection: string; id: string; at: string; by: string }>;

/** Encrypted values were re-wrapped under another key: the same plaintext, a new envelope; not an edit. */
export type ItemRewrapped = DomainEvent<
  'ItemRewrapped',
  { collection: string; id: string; changes: ItemValues; at: string; by: string }
>;

/** An item was set back to the values of one of its revisions: a new change, history is never rewritten. */
export type ItemReverted = DomainEvent<
  'ItemReverted',
  { collection: string; id: string; values: ItemValues; revisionId: string; at: string; by: string }
>;
/** A named version's values became main's (promote); `diverged`: main had changed since the snapshot. */
export type ItemVersionPromoted = DomainEvent<
  'ItemVersionPromoted',
  { collection: string; id: string; key: string; values: ItemValues; diverged: boolean; at: string; by: string }
>;
/** A soft-deleted item is live again, with the values it had. */
export type ItemRestored = DomainEvent<'ItemRestored', { collection: string; id: string; at: string; by: string }>;

export type ItemEvent =
  | ItemCreated
  | ItemUpdated
  | ItemReplaced
  | ItemDeleted
  | ItemPurged
  | ItemRewrapped
  | ItemReverted
  | ItemRestored
  | ItemVersionPromoted;
export const ITEM_EVENT_TYPES = [
  'ItemCreated',
  'ItemUpdated',
  'ItemReplaced',
  'ItemDeleted',
  'ItemPurged',
  'ItemRewrapped',
  'ItemReverted',
  'ItemRestored',
  'ItemVersionPromoted',
] as const;

/** Every item is a stream of its own. */
export const itemStream = (siteId: string, collection: string, id: string) => `${siteId}/item/${collection}/${id}`;
