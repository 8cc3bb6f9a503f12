import type { DomainEvent } from '../../kernel/es/event.ts';
import type { ItemValues } from './item.events.ts';

/**
 * Named versions of one item (spec "Named version of an item"), in a stream of their own beside the item's:
 * drafts never touch main. `base` is the number of main's revisions when the version was snapshotted, so
 * `mainChanged` is "main has more revisions now".
 */
export type At = { collection: string; id: string; key: string; at: string; by: string };
export type ItemVersionEvent =
  | DomainEvent<'ItemVersionCreated', At & { name: string; data: ItemValues; base: number }>
  | DomainEvent<'ItemVersionUpdated', At & { name?: string; changes?: ItemValues }>
  | DomainEvent<'ItemVersionDeleted', At>;
export const ITEM_VERSION_EVENT_TYPES = ['ItemVersionCreated', 'ItemVersionUpdated', 'ItemVersionDeleted'] as const;

export const itemVersionsStream = (site: string, collection: string, id: string) =>
  `${site}/item-versions/${collection}/${id}`;
