import type { Feature } from '../../deps.ts';
import { retentionEnvKey } from '../../kernel/retention.ts';
import { pruneDeliveries, webhooksProjector } from '../../../projections/webhooks/index.ts';
import { readAsSite } from '../../kernel/tenancy/site.ts';
import { webhookDispatcher } from './delivery.reactor.ts';
import { senderRound, WEBHOOK_SENDER } from './delivery.sender.ts';
import { webhooksRoutes } from './http/webhooks.routes.ts';

/**
 * For the configuration slice:
 * - `WebhookConfig` / `WebhookConfigSchema`: a webhook as configuration (no id, no secret), strict.
 * - `webhookConfigs(store, siteId, asOf?) → Promise<WebhookConfig[]>`: the site's webhooks, sorted by name.
 * - `webhookConfigCommand(db, ring, siteId, { create, update, delete }, now, by, allowPrivate?) → Promise<{ command, secrets } | null>`: async
 *   and given `db`, because each created webhook's generated secret is sealed (subject keys live in the database)
 *   before the command is built; pass the result to `handleCommands` with the other streams' commands.
 */
export { WebhookConfigSchema, type WebhookConfig } from './webhook.schema.ts';
export { shredDeletedSecrets, webhookConfigCommand, webhookConfigs } from './webhook.commands.ts';
export { sendDueDeliveries } from './delivery.sender.ts';
export { touchesRestricted, WEBHOOK_DISPATCHER } from './delivery.reactor.ts';

/** Outbound webhooks: settings per site, deliveries recorded from the log by a reactor and sent by a loop. */
export const webhooksFeature: Feature = {
  name: 'webhooks',
  projectors: [webhooksProjector],
  routes: webhooksRoutes,
  reactors: (deps) => [webhookDispatcher(deps)],
  loops: (deps) => [
    {
      name: WEBHOOK_SENDER,
      intervalMs: deps.config.SVC_WEBHOOK_INTERVAL_MS,
      // Woken by a delivery scheduled; else it sleeps until the next attempt is due.
      wakeOn: ['WebhookDeliveryScheduled'],
      idleMs: 60_000,
      run: () => senderRound(deps, deps.clock.now()),
    },
  ],
  retention: () => [
    {
      kind: 'webhook_deliveries',
      defaultDays: 30,
      envKey: retentionEnvKey('webhook_deliveries'),
      describe: 'Finished webhook deliveries (delivered or abandoned) in the delivery log; pending ones are kept.',
      prune: (db, siteId, before) => readAsSite(db, siteId, (trx) => pruneDeliveries(trx, siteId, before)),
    },
  ],
};
