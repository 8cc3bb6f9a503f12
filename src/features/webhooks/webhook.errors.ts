import { defineError } from '../../kernel/http/errors.ts';

/** The webhook does not exist on the site (or was deleted). */
export const WebhookNotFound = defineError<{ webhookId?: string; name?: string }>('NOT_FOUND', 'not_found', (d) =>
  d.name !== undefined ? `webhook named ${JSON.stringify(d.name)} not found` : `webhook ${d.webhookId} not found`,
);

/** Webhook names are unique per site. */
export const WebhookNameTaken = defineError<{ name: string }>(
  'CONFLICT',
  'conflict',
  (d) => `a webhook named ${JSON.stringify(d.name)} already exists`,
  () => ({ path: ['name'] }),
);

/** A create names a webhook id the site holds already (a generated id met again). */
export const WebhookExists = defineError<{ webhookId: string }>(
  'CONFLICT',
  'conflict',
  (d) => `webhook ${d.webhookId} already exists`,
);

/** The target is not a URL the service posts to: http(s) only, no credentials in it, no private address. */
export const InvalidWebhookUrl = defineError<{ message: string; reason: string; path?: string[] }>(
  'VALIDATION_FAILED',
  'invalid',
  (d) => `url: ${d.message}`,
  (d) => ({ path: d.path ?? ['url'], extensions: { reason: d.reason } }),
);

/** A site keeps at most MAX_WEBHOOKS webhooks: each event reads them all, and one stream holds them. */
export const TooManyWebhooks = defineError<{ max: number }>(
  'CONFLICT',
  'conflict',
  (d) => `a site has at most ${d.max} webhooks`,
  (d) => ({ extensions: { reason: 'limit', max: d.max } }),
);
