/**
 * The public surface of the webhooks read model: a site's webhooks (never their secrets) and its delivery log.
 */
export { webhooksProjector } from './webhooks.projector.ts';
export {
  dueDeliveries,
  findWebhook,
  listDeliveries,
  listWebhooks,
  nextDeliveryAt,
  pruneDeliveries,
  type DeliveryRecord,
  type WebhookRecord,
} from './webhooks.queries.ts';
export type { DeliveryAttempt } from './webhooks.table.ts';
