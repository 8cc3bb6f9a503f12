import { readFileSync } from 'node:fs';
import webpush from 'web-push';
import type { AppDeps } from '../../deps.ts';
import type { EventMetadata } from '../../kernel/es/event.ts';
import { handleCommand } from '../../kernel/es/handle-command.ts';
import { OutboundError, outboundRequest } from '../../platform/net/outbound-http.ts';
import type { Vapid } from '../../platform/push/vapid.ts';
import type { PushSubscriptionRecord } from '../../../projections/push-subscriptions/index.ts';
import { pushSubscriptionDecider } from './push.decider.ts';
import { pushSubscriptionStream } from '../../contracts/push/push.events.ts';

type Deps = Pick<AppDeps, 'store' | 'config' | 'clock'>;

/** How a fan-out went: pushes tried, accepted by the push service, endpoints found gone (removed), and failures. */
export interface DispatchSummary {
  attempted: number;
  delivered: number;
  gone: number;
  failed: number;
}

/** How long a push service keeps an undelivered message (seconds). */
export const PUSH_TTL_S = 24 * 3600;

const cas = new Map<string, Buffer>();
const caOf = (file: string | undefined) => {
  if (!file) return undefined;
  let ca = cas.get(file);
  if (!ca) cas.set(file, (ca = readFileSync(file)));
  return ca;
};

type Outcome = 'delivered' | 'gone' | 'failed';

/**
 * One push (RFC 8030): the payload encrypted for the browser (RFC 8291, aes128gcm) and signed for the push service
 * (RFC 8292, VAPID) by `web-push`, sent through the outbound helper (the endpoint's addresses checked after DNS, no
 * redirect, a timeout), so a subscription cannot point the service at a private address.
 */
export async function sendPush(
  deps: Deps,
  vapid: Vapid,
  sub: PushSubscriptionRecord,
  payload: string,
): Promise<Outcome> {
  const details = webpush.generateRequestDetails({ endpoint: sub.endpoint, keys: sub.keys }, payload, {
    vapidDetails: { subject: vapid.subject, publicKey: vapid.publicKey, privateKey: vapid.privateKey },
    TTL: PUSH_TTL_S,
    contentEncoding: 'aes128gcm',
  });
  try {
    const headers = Object.fromEntries(Object.entries(details.headers).map(([k, v]) => [k, String(v)]));
    const ca = caOf(deps.config.SVC_PUSH_CA_FILE);
    const res = await outboundRequest(details.endpoint, {
      method: 'POST',
      headers,
      body: details.body ?? Buffer.alloc(0),
      httpsOnly: true,
      allowPrivate: deps.config.SVC_PUSH_ALLOW_PRIVATE,
      timeoutMs: deps.config.SVC_PUSH_TIMEOUT_MS,
      maxBytes: 64 * 1024,
      ...(ca ? { ca } : {}),
    });
    if (res.status >= 200 && res.status < 300) return 'delivered';
    return res.status === 404 || res.status === 410 ? 'gone' : 'failed';
  } catch (err) {
    if (err instanceof OutboundError) return 'failed';
    throw err;
  }
}

/** Removes a subscription the push service called gone, unless it was saved again (other keys) meanwhile. */
async function removeGone(deps: Deps, siteId: string, sub: PushSubscriptionRecord, metadata: EventMetadata) {
  await handleCommand(
    deps.store,
    pushSubscriptionDecider,
    pushSubscriptionStream(siteId, sub.id),
    {
      type: 'RemoveSubscription',
      data: { subscriptionId: sub.id, userId: null, reason: 'gone', ifKeys: sub.keys, now: metadata.occurredAt },
    },
    { metadata },
  );
}

/**
 * Sends the payload to each subscription, SVC_PUSH_CONCURRENCY at a time, each bounded by SVC_PUSH_TIMEOUT_MS; an
 * endpoint the push service calls gone (404, 410) is removed. Best effort: a failure is counted, never thrown.
 */
export async function dispatch(
  deps: Deps,
  siteId: string,
  subs: readonly PushSubscriptionRecord[],
  payload: string,
  metadata: EventMetadata,
): Promise<DispatchSummary> {
  const summary: DispatchSummary = { attempted: 0, delivered: 0, gone: 0, failed: 0 };
  const vapid = deps.config.vapid;
  if (!vapid) return summary;
  let next = 0;
  const worker = async () => {
    while (next < subs.length) {
      const sub = subs[next++]!;
      summary.attempted++;
      let outcome: Outcome;
      try {
        outcome = await sendPush(deps, vapid, sub, payload);
      } catch {
        outcome = 'failed';
      }
      summary[outcome]++;
      if (outcome === 'gone') await removeGone(deps, siteId, sub, metadata).catch(() => undefined);
    }
  };
  await Promise.all(Array.from({ length: Math.min(deps.config.SVC_PUSH_CONCURRENCY, subs.length) }, worker));
  return summary;
}
