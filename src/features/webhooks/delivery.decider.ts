import type { Decider } from '../../kernel/es/decider.ts';
import type {
  AbandonReason,
  WebhookDeliveryEvent,
  WebhookEventName,
  WebhookPayload,
} from '../../contracts/webhooks/webhook.events.ts';

/** Deliveries are retried until this long after their first attempt, then abandoned. */
export const DELIVERY_WINDOW_MS = 24 * 3600_000;

export type DeliveryState =
  | { exists: false }
  | {
      exists: true;
      status: 'pending' | 'delivered' | 'abandoned';
      webhookId: string;
      sourceEventId: string;
      event: WebhookEventName;
      payload: WebhookPayload;
      attempts: number;
      firstAttemptAt: string | null;
      /** When it is due; null once it is no longer pending. */
      nextAttemptAt: string | null;
    };

/** Record a delivery of the source event to the webhook (nothing when it is recorded already). */
export type ScheduleDelivery = {
  type: 'ScheduleDelivery';
  data: {
    deliveryId: string;
    webhookId: string;
    sourceEventId: string;
    event: WebhookEventName;
    payload: WebhookPayload;
    now: string;
  };
};
/** Record one try; `retryDelayMs` (the jittered backoff, drawn by the sender) places the next one after a failure. */
export type RecordAttempt = {
  type: 'RecordAttempt';
  data: { deliveryId: string; now: string; status: number | null; error: string | null; retryDelayMs: number };
};
/** Give up a pending delivery without sending it. */
export type AbandonDelivery = {
  type: 'AbandonDelivery';
  data: { deliveryId: string; reason: AbandonReason; now: string };
};
export type DeliveryCommand = ScheduleDelivery | RecordAttempt | AbandonDelivery;

const delivered = (status: number | null) => status !== null && status >= 200 && status < 300;

function recordAttempt(cmd: RecordAttempt, s: Extract<DeliveryState, { exists: true }>): WebhookDeliveryEvent[] {
  const { deliveryId, now, status, error, retryDelayMs } = cmd.data;
  const base = { deliveryId, webhookId: s.webhookId, attempt: s.attempts + 1, at: now, status, error };
  if (delivered(status)) {
    return [{ type: 'WebhookDeliveryAttempted', data: { ...base, error: null, delivered: true, nextAttemptAt: null } }];
  }
  const deadline = Date.parse(s.firstAttemptAt ?? now) + DELIVERY_WINDOW_MS;
  const t = Date.parse(now);
  if (t >= deadline) {
    return [
      { type: 'WebhookDeliveryAttempted', data: { ...base, delivered: false, nextAttemptAt: null } },
      { type: 'WebhookDeliveryAbandoned', data: { deliveryId, webhookId: s.webhookId, reason: 'expired', at: now } },
    ];
  }
  // The last try falls at the end of the window, so the window is tried to its end.
  const next = new Date(Math.min(t + Math.max(0, retryDelayMs), deadline)).toISOString();
  return [{ type: 'WebhookDeliveryAttempted', data: { ...base, delivered: false, nextAttemptAt: next } }];
}

function decide(cmd: DeliveryCommand, s: DeliveryState): WebhookDeliveryEvent[] {
  switch (cmd.type) {
    case 'ScheduleDelivery': {
      if (s.exists) return [];
      const { now: at, ...rest } = cmd.data;
      return [{ type: 'WebhookDeliveryScheduled', data: { ...rest, at } }];
    }
    case 'RecordAttempt':
      return s.exists && s.status === 'pending' ? recordAttempt(cmd, s) : [];
    case 'AbandonDelivery': {
      if (!s.exists || s.status !== 'pending') return [];
      const { deliveryId, reason, now } = cmd.data;
      return [{ type: 'WebhookDeliveryAbandoned', data: { deliveryId, webhookId: s.webhookId, reason, at: now } }];
    }
  }
}

function evolve(s: DeliveryState, e: WebhookDeliveryEvent): DeliveryState {
  switch (e.type) {
    case 'WebhookDeliveryScheduled': {
      const { webhookId, sourceEventId, event, payload, at } = e.data;
      const status = 'pending';
      return {
        exists: true,
        status,
        webhookId,
        sourceEventId,
        event,
        payload,
        attempts: 0,
        firstAttemptAt: null,
        nextAttemptAt: at,
      };
    }
    case 'WebhookDeliveryAttempted':
      if (!s.exists) return s;
      return {
        ...s,
        status: e.data.delivered ? 'delivered' : s.status,
        attempts: e.data.attempt,
        firstAttemptAt: s.firstAttemptAt ?? e.data.at,
        nextAttemptAt: e.data.nextAttemptAt,
      };
    case 'WebhookDeliveryAbandoned':
      return s.exists ? { ...s, status: 'abandoned', nextAttemptAt: null } : s;
  }
}

/** One delivery of one source event to one webhook: scheduled once, attempted until delivered or abandoned. */
export const deliveryDecider: Decider<DeliveryState, DeliveryCommand, WebhookDeliveryEvent> = {
  initialState: () => ({ exists: false }),
  decide,
  evolve,
};
