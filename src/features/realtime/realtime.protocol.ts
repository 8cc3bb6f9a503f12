import { z } from 'zod';
import { inspectJson } from '../../platform/http/input-guard.ts';

/**
 * The realtime frame protocol (the spec leaves it open; README "Realtime" documents it). Server frames, on SSE as
 * `id:`/`event:`/`data:` and on WebSocket as one JSON text message `{ type, id, data }`:
 * - `ready` `{ connectionId, siteId, replayed }`: replay done, live from here;
 * - `notification` (id: the log position) the spec's notification payload;
 * - `item` (id: the log position) `{ subscription, event: create|update|delete|leave, collection, id, item }`;
 * - `reset` `{ reason }`: the missed frames are too many to replay; reload the inbox and the subscribed lists;
 * - `subscribed` / `unsubscribed` `{ id }`, `error` `{ code, message, subscription? }`, `pong`;
 * - `closed` `{ reason }`: the server ends the connection (access revoked, too slow a reader).
 * Client messages (WebSocket): `subscribe` (a `LiveSubscription` and `type`), `unsubscribe { id }`, `ping`.
 */
export type ServerFrameType =
  'ready' | 'notification' | 'item' | 'reset' | 'subscribed' | 'unsubscribed' | 'error' | 'pong' | 'closed';

export interface ServerFrame {
  type: ServerFrameType;
  /** The log position of a frame that came from the log (the `Last-Event-ID` to resume after); else null. */
  id: string | null;
  data: unknown;
}

export const ITEM_EVENTS = ['create', 'update', 'delete'] as const;
export type ItemEventName = (typeof ITEM_EVENTS)[number];

/** One live item subscription: a collection, a filter and fields of the list language, and which changes. */
export const LiveSubscription = z
  .object({
    id: z.string().regex(/^[A-Za-z0-9_.:-]{1,64}$/, 'a subscription id is 1 to 64 letters, digits, _ . : -'),
    collection: z.string().min(1).max(64),
    query: z
      .object({
        filter: z.record(z.string(), z.unknown()).optional(),
        fields: z.array(z.string().min(1).max(200)).min(1).max(100).optional(),
      })
      .strict()
      .optional(),
    events: z.array(z.enum(ITEM_EVENTS)).min(1).max(3).optional(),
  })
  .strict();
export type LiveSubscription = z.infer<typeof LiveSubscription>;

const ClientMessage = z.discriminatedUnion('type', [
  LiveSubscription.extend({ type: z.literal('subscribe') }).strict(),
  z.object({ type: z.literal('unsubscribe'), id: z.string().min(1).max(64) }).strict(),
  z.object({ type: z.literal('ping') }).strict(),
]);
export type ClientMessage = z.infer<typeof ClientMessage>;

/** Client messages are small. */
export const MAX_MESSAGE_BYTES = 16 * 1024;

/** JSON text checked as the edge checks bodies (prototype keys, NULs, depth) and then by `schema`; or why not. */
function parseChecked<T>(raw: string, schema: z.ZodType<T>, root: string[], what: string): T | { error: string } {
  if (raw.length > MAX_MESSAGE_BYTES) return { error: `${what} is at most ${MAX_MESSAGE_BYTES} bytes` };
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    return { error: `${what} is not JSON` };
  }
  const problem = inspectJson(value, root, 16);
  if (problem) return { error: `${problem.path.join('.')}: ${problem.message}` };
  const r = schema.safeParse(value);
  if (!r.success) {
    const i = r.error.issues[0]!;
    return { error: `${[...root, ...i.path.map(String)].join('.') || what}: ${i.message}` };
  }
  return r.data;
}

/** A parsed client message, or the reason it is refused. */
export const parseClientMessage = (raw: string) => parseChecked(raw, ClientMessage, [], 'a message');

/** Subscriptions given on the connection address (`subscribe=` a JSON array), checked alike. */
export const parseSubscriptionList = (raw: string) =>
  parseChecked(raw, z.array(LiveSubscription).max(100), ['subscribe'], 'subscribe');
