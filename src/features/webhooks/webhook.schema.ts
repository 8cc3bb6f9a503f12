import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import { checkUrl, OutboundError } from '../../platform/net/outbound-http.ts';
import { WEBHOOK_EVENT_NAMES } from '../../contracts/webhooks/webhook.events.ts';

/** A webhook as configuration (manifest): no id, no secret. */
export interface WebhookConfig {
  name: string;
  url: string;
  events: string[];
  collections: string[] | null;
  enabled: boolean;
}

const COLLECTION = /^[a-z][a-z0-9_]{0,62}$/;
const unique = (xs: readonly string[]) => new Set(xs).size === xs.length;

/** Standard Webhooks secrets: `whsec_` and the base64 of 24 to 64 random bytes. */
const SECRET = /^whsec_([A-Za-z0-9+/]{32,88}={0,2})$/;
const secretBytes = (s: string) => Buffer.from(SECRET.exec(s)?.[1] ?? '', 'base64').length;

/** A new signing secret in the Standard Webhooks format (32 random bytes). */
export const generateSecret = (): string => `whsec_${randomBytes(32).toString('base64')}`;

/** Why a URL is not one the service posts to, or null (scheme and credentials only; the address is checked at send). */
export function urlProblem(url: string): { message: string; reason: string } | null {
  try {
    checkUrl(url);
    return null;
  } catch (err) {
    if (!(err instanceof OutboundError)) throw err;
    return { message: err.message, reason: err.reason };
  }
}

/** The settings' rules, shared by the routes' bodies and the configuration schema. */
export const webhookFields = {
  name: z.string().trim().min(1).max(200),
  url: z.string().min(1).max(2048),
  events: z.array(z.enum(WEBHOOK_EVENT_NAMES)).min(1).max(WEBHOOK_EVENT_NAMES.length).refine(unique, 'each event once'),
  collections: z
    .array(z.string().regex(COLLECTION, 'a collection name'))
    .min(1)
    .max(200)
    .refine(unique, 'each collection once')
    .nullable(),
  enabled: z.boolean(),
};

/** A signing secret a client chooses (Standard Webhooks format). */
export const WebhookSecret = z
  .string()
  .regex(SECRET, 'whsec_ followed by base64')
  .refine((s) => secretBytes(s) >= 24 && secretBytes(s) <= 64, 'the secret must decode to 24 to 64 bytes');

/** A webhook as configuration, every key required, unknown keys refused, its URL checked. */
export const WebhookConfigSchema: z.ZodType<WebhookConfig> = z
  .object(webhookFields)
  .strict()
  .superRefine((v, ctx) => {
    const problem = urlProblem(v.url);
    if (problem) ctx.addIssue({ code: 'custom', path: ['url'], message: problem.message });
  });

/** POST body: the settings (collections default to all, enabled to true) and an optional secret. */
export const WebhookCreateBody = z
  .object({
    ...webhookFields,
    collections: webhookFields.collections.default(null),
    enabled: webhookFields.enabled.default(true),
    secret: WebhookSecret.optional(),
  })
  .strict();

/** PATCH body: the named settings replace the webhook's; `secret` rotates the signing secret. */
export const WebhookPatchBody = z
  .object({ ...webhookFields, secret: WebhookSecret })
  .partial()
  .strict();

export type WebhookCreate = z.output<typeof WebhookCreateBody>;
export type WebhookPatch = z.output<typeof WebhookPatchBody>;
