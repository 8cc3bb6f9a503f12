import { z } from 'zod';
import { addressProblem } from '../address.ts';

/** An email address as the suppression routes take it: Unicode allowed, at most 254 characters, one `@`. */
export const EmailAddress = z
  .string()
  .max(1024)
  .superRefine((v, ctx) => {
    const problem = addressProblem(v);
    if (problem) ctx.addIssue({ code: 'custom', message: problem.message, params: { reason: problem.reason } });
  })
  .describe('An email address; compared trimmed, NFC and lower-cased');

/** A suppression as the list shows it. */
export const SuppressionRecordBody = z
  .object({
    email: z.string().nullable().describe('The normalised address; null once the person was erased'),
    emailHash: z.string().describe('Keyed hash of the normalised address'),
    reason: z.string().nullable(),
    source: z.enum(['admin', 'unsubscribe']),
    suppressedAt: z.string(),
  })
  .meta({ id: 'EmailSuppression' });

export const SuppressBody = z
  .object({ email: EmailAddress, reason: z.string().max(500).optional() })
  .strict()
  .meta({ id: 'EmailSuppressionCreate' });

export const SuppressionParams = z.object({ email: EmailAddress });

export const SuppressionQuery = z
  .object({
    limit: z.coerce.number().int().min(1).max(200).default(25),
    offset: z.coerce.number().int().min(0).max(1_000_000).default(0),
  })
  .strict();

export const SuppressionListMeta = z.object({
  total: z.number().int(),
  limit: z.number().int(),
  offset: z.number().int(),
});

/** What the one-click unsubscribe answers: the same whether the address was already on the list or not. */
export const UnsubscribedBody = z.object({ unsubscribed: z.literal(true) }).meta({ id: 'EmailUnsubscribed' });

export const UnsubscribeQuery = z.object({ token: z.string().max(4096).optional() });

/** RFC 8058's form body (`List-Unsubscribe=One-Click`), optionally with the token; `page` marks the page's own form. */
export const UnsubscribeForm = z
  .object({
    'List-Unsubscribe': z.string().max(100).optional(),
    token: z.string().max(4096).optional(),
    page: z.string().max(10).optional(),
  })
  .nullish();
