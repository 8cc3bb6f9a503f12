import type {
  ItemCreated,
  ItemDeleted,
  ItemReplaced,
  ItemRestored,
  ItemReverted,
  ItemUpdated,
  ItemVersionPromoted,
} from '../items/item.events.ts';
import type { ReleasePublished } from '../releases/release.events.ts';
import type { WebhookEventName } from './webhook.events.ts';

/** The log's events a webhook can hear of (event flows hear of the same ones). */
export type SourceEvent =
  | ItemCreated
  | ItemUpdated
  | ItemReplaced
  | ItemDeleted
  | ItemReverted
  | ItemRestored
  | ItemVersionPromoted
  | ReleasePublished;
export const SOURCE_EVENT_TYPES = [
  'ItemCreated',
  'ItemUpdated',
  'ItemReplaced',
  'ItemDeleted',
  'ItemReverted',
  'ItemRestored',
  'ItemVersionPromoted',
  'ReleasePublished',
] as const satisfies readonly SourceEvent['type'][];

const NAME = new Map<SourceEvent['type'], WebhookEventName>([
  ['ItemCreated', 'items.create'],
  ['ItemRestored', 'items.create'],
  ['ItemUpdated', 'items.update'],
  ['ItemReplaced', 'items.update'],
  ['ItemReverted', 'items.update'],
  ['ItemVersionPromoted', 'items.update'],
  ['ItemDeleted', 'items.delete'],
]);

/** The public name of a source event (`items.create`, …, `release.published`), as webhooks and flows hear it. */
export const sourceEventName = (type: SourceEvent['type']): WebhookEventName =>
  type === 'ReleasePublished' ? 'release.published' : NAME.get(type)!;
