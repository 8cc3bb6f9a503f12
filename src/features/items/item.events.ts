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

export type ItemEvent = ItemCreated | ItemUpdated | ItemReplaced | ItemDeleted;
export const ITEM_EVENT_TYPES = ['ItemCreated', 'ItemUpdated', 'ItemReplaced', 'ItemDeleted'] as const;

/** Every item is a stream of its own. */
export const itemStream = (siteId: string, collection: string, id: string) => `${siteId}/item/${collection}/${id}`;
