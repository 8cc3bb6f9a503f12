import type { StoredEventOf } from '../../kernel/es/projector.ts';
import type { WebhookEntry } from './webhook.decider.ts';
import type { WebhookEventName, WebhookPayload } from '../../contracts/webhooks/webhook.events.ts';
import { sourceEventName, type SourceEvent } from '../../contracts/webhooks/webhook.sources.ts';

/** What a source event is to a webhook: its name, the collections it touches, and the payload sent. */
export interface Outgoing {
  event: WebhookEventName;
  collections: string[];
  payload: WebhookPayload;
}

/** Keys only: values may be sealed or encrypted, and the receiver reads the item with credentials of its own. */
const fieldsOf = (values: Record<string, unknown>) => Object.keys(values).sort();

/**
 * The payload of a source event (pure). Items: their site, collection and id, the source event's type and the
 * names of the fields it set (never values: a value may be sealed personal data or encrypted). Releases: the
 * release id, its status and each item's outcome.
 */
export function outgoing(e: StoredEventOf<SourceEvent>): Outgoing {
  const site = e.siteId;
  if (e.type === 'ReleasePublished') {
    const { releaseId, status, outcomes, at } = e.data;
    const items = outcomes.map((o) => ({ collection: o.collection, id: o.itemId, outcome: o.outcome }));
    const data = { site, collection: null, id: releaseId, event: e.type, status, items };
    return {
      event: 'release.published',
      collections: [...new Set(items.map((i) => i.collection))],
      payload: { type: 'release.published', timestamp: at, data },
    };
  }
  const { collection, id, at } = e.data;
  const data: Record<string, unknown> = { site, collection, id, event: e.type };
  if (e.type === 'ItemUpdated') data.fields = fieldsOf(e.data.changes);
  if (e.type === 'ItemCreated' || e.type === 'ItemReplaced' || e.type === 'ItemReverted')
    data.fields = fieldsOf(e.data.values);
  if (e.type === 'ItemVersionPromoted') data.fields = fieldsOf(e.data.values);
  if (e.type === 'ItemReverted') data.revisionId = e.data.revisionId;
  const event = sourceEventName(e.type);
  return { event, collections: [collection], payload: { type: event, timestamp: at, data } };
}

/** Whether an enabled webhook takes the event: it names the event, and all collections or one the event touches. */
export function matches(w: WebhookEntry, o: Pick<Outgoing, 'event' | 'collections'>): boolean {
  if (!w.enabled || !w.events.includes(o.event)) return false;
  return w.collections === null || o.collections.some((c) => w.collections!.includes(c));
}
