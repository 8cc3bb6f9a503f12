import { z } from 'zod';
import { WEBHOOK_EVENT_NAMES } from '../../../contracts/webhooks/webhook.events.ts';
import { pathId } from '../../../kernel/http/path-params.ts';

const EventName = z.enum(WEBHOOK_EVENT_NAMES);

/** A webhook as the API shows it: its settings, never its secret. */
export const WebhookRecordBody = z
  .object({
    id: z.string(),
    name: z.string(),
    url: z.string(),
    events: z.array(EventName),
    collections: z.array(z.string()).nullable(),
    enabled: z.boolean(),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .meta({ id: 'Webhook' });

/** The create answer: the record, and the generated secret (shown this once) when the request gave none. */
export const WebhookCreatedBody = WebhookRecordBody.extend({
  secret: z.string().optional().describe('The generated signing secret, returned only in this answer'),
}).meta({ id: 'WebhookCreated' });

const Attempt = z.object({
  attempt: z.number().int(),
  at: z.string(),
  status: z.number().int().nullable(),
  error: z.string().nullable(),
  delivered: z.boolean(),
});

/** One delivery of the log: the source event, the payload sent, its attempts and where it stands. */
export const DeliveryRecordBody = z
  .object({
    id: z.string(),
    webhookId: z.string(),
    sourceEventId: z.string(),
    event: EventName,
    payload: z.object({ type: EventName, timestamp: z.string(), data: z.record(z.string(), z.unknown()) }),
    status: z.enum(['pending', 'delivered', 'abandoned']),
    reason: z.string().nullable(),
    attempts: z.array(Attempt),
    nextAttemptAt: z.string().nullable(),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .meta({ id: 'WebhookDelivery' });

export const WebhookListMeta = z.object({ total: z.number().int() });
export const DeliveryListMeta = z.object({
  total: z.number().int(),
  limit: z.number().int(),
  offset: z.number().int(),
});

export const WebhookParams = z.object({ id: pathId(64) });
export const DeliveryQuery = z.object({
  limit: z.coerce.number().int().min(1).max(200).default(25),
  offset: z.coerce.number().int().min(0).max(1_000_000).default(0),
});
