import { z } from 'zod';
import { base64url, isP256Point } from '../../../platform/push/vapid.ts';

/** The Push API's subscription JSON: the endpoint and the browser's keys (base64url). */
export const SubscriptionBody = z
  .object({
    endpoint: z.string().min(1).max(2048),
    keys: z
      .object({
        // abort: a refinement runs even after a failed length check; an over-long key is not decoded at all.
        p256dh: z
          .string()
          .max(200, { abort: true })
          .refine((v) => isP256Point(base64url(v)), 'base64url of a 65-byte uncompressed P-256 point'),
        auth: z
          .string()
          .max(100, { abort: true })
          .refine((v) => base64url(v)?.length === 16, 'base64url of 16 bytes'),
      })
      .strict(),
    expirationTime: z.number().nullable().optional().describe('As the Push API gives it; not used'),
  })
  .strict();
export const EndpointBody = z.object({ endpoint: z.string().min(1).max(2048) }).strict();

export const SubscriptionAnswer = z
  .object({ id: z.string(), endpoint: z.string(), userId: z.string() })
  .meta({ id: 'PushSubscription' });
export const VapidKeyAnswer = z.object({ publicKey: z.string() });
export const PushStatusAnswer = z.object({
  vapidConfigured: z.boolean(),
  realtimeAvailable: z.boolean(),
  subscriptions: z.number().int().describe("The site's subscriptions (site admins), else the caller's own"),
});

export const PushTestAnswer = z.object({
  payload: z.object({
    id: z.string(),
    kind: z.string(),
    severity: z.string(),
    title: z.string(),
    body: z.string(),
    deepLink: z.string().nullable(),
    entityId: z.string().nullable(),
    ts: z.string(),
  }),
  push: z.object({
    configured: z.boolean(),
    attempted: z.number().int(),
    delivered: z.number().int(),
    gone: z.number().int().describe('Endpoints the push service called gone (404, 410), removed'),
    failed: z.number().int(),
  }),
  realtime: z.object({ available: z.boolean(), delivered: z.number().int() }),
});
