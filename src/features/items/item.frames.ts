import { defineFrameSource } from '../../platform/realtime/relay.ts';
import { ITEM_EVENT_TYPES, type ItemEvent } from '../../contracts/items/item.events.ts';

/** An item change as the relay carries it: which item, and what happened to it (never its values). */
export interface ItemFrameData {
  collection: string;
  id: string;
  event: 'create' | 'update' | 'delete';
  /** Hard-deleted: its document is gone, so only those who were sent it hear of the deletion. */
  purged: boolean;
}

const EVENT = new Map<ItemEvent['type'], ItemFrameData['event'] | null>([
  ['ItemCreated', 'create'],
  ['ItemRestored', 'create'],
  ['ItemUpdated', 'update'],
  ['ItemReplaced', 'update'],
  ['ItemReverted', 'update'],
  ['ItemVersionPromoted', 'update'],
  ['ItemDeleted', 'delete'],
  ['ItemPurged', 'delete'],
  // Re-wrapped encrypted values: the same plaintext, not a change anyone sees.
  ['ItemRewrapped', null],
]);

/**
 * The live frames of item changes: the realtime slice reads each changed item as each subscriber (rights and
 * filter), so the frame itself carries only its address.
 */
export const itemFrames = defineFrameSource<ItemEvent>({
  types: ITEM_EVENT_TYPES,
  frame: (e) => {
    const event = EVENT.get(e.type);
    if (!event) return null;
    const data: ItemFrameData = {
      collection: e.data.collection,
      id: e.data.id,
      event,
      purged: e.type === 'ItemPurged',
    };
    return { type: 'item', data };
  },
});
