import { z } from 'zod';

/** An API key as its admins see it: never the secret, only its prefix. */
export const ApiKeyRecord = z
  .object({
    id: z.string(),
    name: z.string(),
    prefix: z.string(),
    role: z.string(),
    publishable: z.boolean(),
    allowedOrigins: z.array(z.string()).nullable(),
    expiresAt: z.string().nullable(),
    createdAt: z.string(),
    createdBy: z.string(),
    lastUsedAt: z.string().nullable(),
    revokedAt: z.string().nullable(),
  })
  .meta({ id: 'ApiKey' });

/** The creation answer: the record plus the plaintext key, shown this once. */
export const CreatedApiKey = ApiKeyRecord.extend({ key: z.string() });
