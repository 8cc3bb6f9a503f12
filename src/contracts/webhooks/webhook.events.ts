import type { DomainEvent } from '../../kernel/es/event.ts';
import type { Sealed } from '../../platform/privacy/pii.ts';

/** What a webhook may subscribe to: item changes and release publishes. */
export const WEBHOOK_EVENT_NAMES = ['items.create', 'items.update', 'items.delete', 'release.published'] as const;
export type WebhookEventName = (typeof WEBHOOK_EVENT_NAMES)[number];

/** A webhook's settings, as configured (its id and secret aside). */
export interface WebhookDefinition {
  name: string;
  url: string;
  events: WebhookEventName[];
  /** Collection names whose events it receives; null: every collection. */
  collections: string[] | null;
  enabled: boolean;
}

/** A webhook was added to the site; its signing secret is sealed under the webhook's id (never plain). */
export type WebhookCreated = DomainEvent<
  'WebhookCreated',
  WebhookDefinition & { webhookId: string; secret: Sealed; at: string; by: string }
>;
/** Some settings of a webhook changed (a new secret among them, sealed); only the changed keys are recorded. */
export type WebhookUpdated = DomainEvent<
  'WebhookUpdated',
  { webhookId: string; changes: Partial<WebhookDefinition> & { secret?: Sealed }; at: string; by: string }
>;
/** A webhook was removed: its pending deliveries are abandoned, not sent. */
export type WebhookDeleted = DomainEvent<'WebhookDeleted', { webhookId: string; at: string; by: string }>;

export type WebhookEvent = WebhookCreated | WebhookUpdated | WebhookDeleted;
export const WEBHOOK_EVENT_TYPES = ['WebhookCreated', 'WebhookUpdated', 'WebhookDeleted'] as const;

/** The body a receiver gets: the same bytes on every attempt of one delivery. */
export interface WebhookPayload {
  type: WebhookEventName;
  timestamp: string;
  data: Record<string, unknown>;
}

/** A source event matched a webhook: one delivery, due at once. */
export type WebhookDeliveryScheduled = DomainEvent<
  'WebhookDeliveryScheduled',
  {
    deliveryId: string;
    webhookId: string;
    /** The event that caused it: the `webhook-id` header, the receiver's idempotency key. */
    sourceEventId: string;
    event: WebhookEventName;
    payload: WebhookPayload;
    at: string;
  }
>;
/** One try to send a delivery: the receiver's status (or why there was none) and when the next try is due. */
export type WebhookDeliveryAttempted = DomainEvent<
  'WebhookDeliveryAttempted',
  {
    deliveryId: string;
    webhookId: string;
    attempt: number;
    at: string;
    status: number | null;
    error: string | null;
    delivered: boolean;
    nextAttemptAt: string | null;
  }
>;
/** A delivery given up: its retry time ran out, or its webhook was disabled or deleted before it went out. */
export type WebhookDeliveryAbandoned = DomainEvent<
  'WebhookDeliveryAbandoned',
  { deliveryId: string; webhookId: string; reason: AbandonReason; at: string }
>;
export type AbandonReason = 'expired' | 'webhook_disabled' | 'webhook_deleted';

export type WebhookDeliveryEvent = WebhookDeliveryScheduled | WebhookDeliveryAttempted | WebhookDeliveryAbandoned;
export const WEBHOOK_DELIVERY_EVENT_TYPES = [
  'WebhookDeliveryScheduled',
  'WebhookDeliveryAttempted',
  'WebhookDeliveryAbandoned',
] as const;

/** Every webhook of a site on one stream, so a configuration import changes them in one atomic append. */
export const webhooksStream = (siteId: string) => `${siteId}/webhooks/${siteId}`;
/** A delivery's id follows from its webhook and its source event: the same event never makes a second one. */
export const deliveryIdOf = (webhookId: string, sourceEventId: string) => `${webhookId}-${sourceEventId}`;
export const deliveryStream = (siteId: string, deliveryId: string) => `${siteId}/webhook-delivery/${deliveryId}`;
