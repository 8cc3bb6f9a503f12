import { randomInt } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import type { AppDeps } from '../../deps.ts';
import type { EventMetadata } from '../../kernel/es/event.ts';
import { handleCommand, readState } from '../../kernel/es/handle-command.ts';
import { OutboundError, outboundRequest } from '../../platform/net/outbound-http.ts';
import { unseal } from '../../platform/privacy/pii.ts';
import { dueDeliveries, nextDeliveryAt } from '../../../projections/webhooks/index.ts';
import { deliveryDecider, type DeliveryCommand, type DeliveryState } from './delivery.decider.ts';
import { siteWebhooks } from './webhook.commands.ts';
import { deliveryStream } from '../../contracts/webhooks/webhook.events.ts';

export const WEBHOOK_SENDER = 'webhook-sender';
/** Backoff of failed attempts: full jitter over base × 2^(n−1), capped. */
export const RETRY_BASE_MS = 5_000;
export const RETRY_CAP_MS = 3600_000;
const TIMEOUT_MS = 10_000;
/** A receiver's answer is read up to this size (a larger one fails the attempt). */
const MAX_ANSWER_BYTES = 64 * 1024;
const BATCH = 100;
const CONCURRENCY = 8;

/** The wait before the next try after `attempt` failed tries: uniform in [0, min(cap, base · 2^(attempt−1))]. */
export const retryDelay = (attempt: number, random = (n: number) => randomInt(0, n + 1)): number =>
  random(Math.min(RETRY_CAP_MS, RETRY_BASE_MS * 2 ** Math.min(attempt - 1, 30)));

type Deps = Pick<AppDeps, 'db' | 'store' | 'config'>;
type Pending = Extract<DeliveryState, { exists: true }>;
export type SendOutcome = 'delivered' | 'failed' | 'abandoned' | 'skipped';

const senderMetadata = (siteId: string, s: Pending, now: Date): EventMetadata => ({
  siteId,
  actor: { type: 'system', id: WEBHOOK_SENDER },
  correlationId: `webhook:${s.sourceEventId}`,
  causationId: s.sourceEventId,
  requestId: null,
  occurredAt: now.toISOString(),
});

/** POSTs the payload signed as Standard Webhooks say; the receiver's status, or why there was none. */
async function post(deps: Deps, url: string, secret: string, s: Pending, now: Date) {
  const body = JSON.stringify(s.payload);
  const headers = {
    'content-type': 'application/json',
    'webhook-id': s.sourceEventId,
    'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
    'webhook-signature': new Webhook(secret).sign(s.sourceEventId, now, body),
  };
  try {
    const res = await outboundRequest(url, {
      method: 'POST',
      headers,
      body,
      timeoutMs: TIMEOUT_MS,
      maxBytes: MAX_ANSWER_BYTES,
      allowPrivate: deps.config.SVC_WEBHOOK_ALLOW_PRIVATE,
    });
    return { status: res.status, error: res.status >= 200 && res.status < 300 ? null : `answered ${res.status}` };
  } catch (err) {
    if (!(err instanceof OutboundError)) throw err;
    return { status: null, error: `${err.reason}: ${err.message}` };
  }
}

/**
 * Sends one due delivery: the webhook is read now (disabled or deleted: abandoned, not sent), the attempt recorded
 * as an event. Nothing is recorded before the POST, so a send cut off by a crash stays due and goes out again (the
 * receiver dedupes by `webhook-id`).
 */
export async function sendDelivery(deps: Deps, siteId: string, deliveryId: string, now: Date): Promise<SendOutcome> {
  const streamId = deliveryStream(siteId, deliveryId);
  const { state } = await readState(deps.store, deliveryDecider, streamId);
  if (!state.exists || state.status !== 'pending' || !state.nextAttemptAt) return 'skipped';
  if (Date.parse(state.nextAttemptAt) > now.getTime()) return 'skipped';
  const record = (command: DeliveryCommand) =>
    handleCommand(deps.store, deliveryDecider, streamId, command, { metadata: senderMetadata(siteId, state, now) });
  const webhook = (await siteWebhooks(deps.store, siteId)).webhooks.find((w) => w.id === state.webhookId);
  const secret = webhook?.enabled ? await unseal(deps.db, deps.config.keyring, webhook.id, webhook.secret) : null;
  if (!webhook || !webhook.enabled || secret === null) {
    const reason = webhook?.enabled === false ? 'webhook_disabled' : 'webhook_deleted';
    await record({ type: 'AbandonDelivery', data: { deliveryId, reason, now: now.toISOString() } });
    return 'abandoned';
  }
  const { status, error } = await post(deps, webhook.url, secret, state, now);
  const retryDelayMs = retryDelay(state.attempts + 1);
  const r = await record({
    type: 'RecordAttempt',
    data: { deliveryId, now: now.toISOString(), status, error, retryDelayMs },
  });
  if (r.state.exists && r.state.status === 'abandoned') return 'abandoned';
  return error === null ? 'delivered' : 'failed';
}

/**
 * The webhook sender's tick (a leader-run loop): every due delivery of every site, a few at a time. Returns what
 * became of each.
 */
export async function sendDueDeliveries(deps: Deps, now: Date): Promise<Record<SendOutcome, number>> {
  const counts: Record<SendOutcome, number> = { delivered: 0, failed: 0, abandoned: 0, skipped: 0 };
  const due = await dueDeliveries(deps.db, now, BATCH);
  for (let i = 0; i < due.length; i += CONCURRENCY) {
    const outcomes = await Promise.all(
      due.slice(i, i + CONCURRENCY).map((d) => sendDelivery(deps, d.siteId, d.deliveryId, now)),
    );
    for (const o of outcomes) counts[o]++;
  }
  return counts;
}

/** A round of the sender loop: the due deliveries, then when the next attempt is due (the loop sleeps until then). */
export async function senderRound(deps: Deps, now: Date): Promise<Date | null> {
  await sendDueDeliveries(deps, now);
  return nextDeliveryAt(deps.db);
}
