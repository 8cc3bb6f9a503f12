import type { Generated } from 'kysely';
import type { Json, NullableTimestamp, Timestamp } from '../../src/kernel/db/database.ts';
import type { WebhookEventName, WebhookPayload } from '../../src/contracts/webhooks/webhook.events.ts';

/** One row per webhook of a site, without its secret (DDL in webhooks.projector.ts). */
export interface WebhooksTable {
  site_id: string;
  webhook_id: string;
  name: string;
  url: string;
  events: Json<WebhookEventName[]>;
  collections: Json<string[] | null>;
  enabled: boolean;
  created_at: Timestamp;
  updated_at: Timestamp;
}

/** One try of a delivery, as the delivery log shows it. */
export interface DeliveryAttempt {
  attempt: number;
  at: string;
  status: number | null;
  error: string | null;
  delivered: boolean;
}

/** One row per delivery (a source event for a webhook) with its attempts; the sender's due query reads it. */
export interface WebhookDeliveriesTable {
  /** The order deliveries were recorded in (the log's): the delivery log lists the newest first. */
  seq: Generated<string>;
  site_id: string;
  delivery_id: string;
  webhook_id: string;
  source_event_id: string;
  event: WebhookEventName;
  payload: Json<WebhookPayload>;
  status: 'pending' | 'delivered' | 'abandoned';
  reason: string | null;
  attempts: Json<DeliveryAttempt[]>;
  attempt_count: number;
  next_attempt_at: NullableTimestamp;
  created_at: Timestamp;
  updated_at: Timestamp;
}

declare module '../../src/kernel/db/database.ts' {
  interface DB {
    webhooks: WebhooksTable;
    webhook_deliveries: WebhookDeliveriesTable;
  }
}
