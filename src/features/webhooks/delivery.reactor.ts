import type { AppDeps } from '../../deps.ts';
import { concernsRestricted } from '../consents/index.ts';
import type { EventMetadata, StoredEvent } from '../../kernel/es/event.ts';
import { LocalCache } from '../../platform/cache/local-cache.ts';
import { WrongExpectedVersion } from '../../kernel/es/event-store.ts';
import type { StoredEventOf } from '../../kernel/es/projector.ts';
import { defineReactor, reactionMetadata, type Reactor } from '../../kernel/es/reactor.ts';
import { deliveryDecider, type ScheduleDelivery } from './delivery.decider.ts';
import { matches, outgoing, type Outgoing } from './webhook-payload.ts';
import { SOURCE_EVENT_TYPES, type SourceEvent } from '../../contracts/webhooks/webhook.sources.ts';
import { webhooksDecider, type WebhooksState } from './webhook.decider.ts';
import {
  deliveryIdOf,
  deliveryStream,
  webhooksStream,
  WEBHOOK_EVENT_TYPES,
  type WebhookEvent,
} from '../../contracts/webhooks/webhook.events.ts';
import { domainEvent } from '../../kernel/es/on-events.ts';

export const WEBHOOK_DISPATCHER = 'webhook-dispatcher';

/** One delivery for each enabled webhook of the event's site that takes it (pure). */
export function deliveriesFor(e: StoredEventOf<SourceEvent>, s: WebhooksState, now: string): ScheduleDelivery[] {
  const out = outgoing(e);
  return s.webhooks
    .filter((w) => matches(w, out))
    .map((w) => ({
      type: 'ScheduleDelivery',
      data: {
        deliveryId: deliveryIdOf(w.id, e.eventId),
        webhookId: w.id,
        sourceEventId: e.eventId,
        event: out.event,
        payload: forWebhook(out.payload, w.collections),
        now,
      },
    }));
}

/** A release's payload names only the items of the collections a webhook takes (all of them for `null`). */
function forWebhook(payload: Outgoing['payload'], collections: readonly string[] | null): Outgoing['payload'] {
  const data = payload.data as { items?: { collection: string }[] };
  if (!collections || !Array.isArray(data.items)) return payload;
  const items = data.items.filter((i) => collections.includes(i.collection));
  return { ...payload, data: { ...payload.data, items } };
}

/** How long a site's webhook settings are kept at most (a safety net: a change of them clears them at once). */
const MEMO_MS = 10 * 60_000;

/**
 * The site's webhooks as they were when the event was recorded (a webhook made later takes none of the past): the
 * site's settings stream is read once and kept until the reactor observes a change of it, in log order.
 */
function webhooksAt(deps: AppDeps, memo: LocalCache<StoredEvent<WebhookEvent>[]>) {
  return async (e: StoredEventOf<SourceEvent>): Promise<WebhooksState> => {
    let events = memo.get(e.siteId);
    if (!events) {
      events = [];
      for await (const x of deps.store.readStream<WebhookEvent>(webhooksStream(e.siteId))) events.push(x);
      memo.set(e.siteId, events, MEMO_MS);
    }
    let state = webhooksDecider.initialState();
    for (const x of events) if (x.createdAt <= e.createdAt) state = webhooksDecider.evolve(state, domainEvent(x));
    return state;
  };
}

/**
 * Whether the event concerns a person under restriction (GDPR Art. 18): their data is then stored and nothing else,
 * so no webhook carries it. Flows ask the same check.
 */
export function touchesRestricted(deps: AppDeps, e: StoredEventOf<SourceEvent>): Promise<boolean> {
  if (e.type === 'ReleasePublished') return Promise.resolve(false);
  return concernsRestricted(deps, e.siteId, e.metadata.actor, { collection: e.data.collection, id: e.data.id });
}

const dispatchMetadata = (e: StoredEventOf<SourceEvent>, occurredAt: string): EventMetadata =>
  reactionMetadata(e, { type: 'system', id: WEBHOOK_DISPATCHER }, new Date(occurredAt));

/**
 * The webhook dispatcher: records a delivery of each item change and release publish for every webhook of the
 * site that takes it. A delivery's stream is named by webhook and source event and appended as a new stream
 * (`no_stream`), so the same event handled again (after a crash) records nothing twice. The sender (a loop) posts
 * them.
 */
export function webhookDispatcher(deps: AppDeps): Reactor {
  const memo = new LocalCache<StoredEvent<WebhookEvent>[]>({ maxEntries: 1000 });
  const webhooksOf = webhooksAt(deps, memo);
  return defineReactor<SourceEvent, { webhooks: WebhooksState; restricted: boolean }, ScheduleDelivery>({
    name: WEBHOOK_DISPATCHER,
    handles: SOURCE_EVENT_TYPES,
    observes: WEBHOOK_EVENT_TYPES,
    observe: (e) => void memo.delete(e.siteId),
    reset: () => memo.clear(),
    // The stream, not the read model (in the subscription mode the read model may lag behind the event), folded up
    // to the event's time: a reactor that runs late must not match the past against webhooks made since.
    load: async (e) => {
      const webhooks = await webhooksOf(e);
      // The restriction is asked only of an event some webhook takes (most item events go nowhere).
      const wanted = deliveriesFor(e, webhooks, e.data.at).length > 0;
      return { webhooks, restricted: wanted && (await touchesRestricted(deps, e)) };
    },
    react: (e, s) => (s.restricted ? [] : deliveriesFor(e, s.webhooks, e.data.at)),
    send: async (cmd, e) => {
      const events = deliveryDecider.decide(cmd, deliveryDecider.initialState());
      const metadata = dispatchMetadata(e, deps.clock.now().toISOString());
      try {
        await deps.store.append(
          deliveryStream(e.siteId, cmd.data.deliveryId),
          events.map((x) => ({ type: x.type, data: x.data, metadata })),
          { expectedVersion: 'no_stream' },
        );
      } catch (err) {
        // Recorded by an earlier run over the same event.
        if (!(err instanceof WrongExpectedVersion)) throw err;
      }
    },
  });
}
