import { z } from 'zod';
import { OpenRecord } from '../../../kernel/http/envelope.ts';

/** One event of the site's log as the audit view shows it: its data with every secret `[redacted]`. */
export const AuditEntry = z
  .object({
    id: z.string(),
    type: z.string(),
    stream: z.string(),
    version: z.number().int(),
    /** Who acted; `onBehalfOf` is the impersonating admin's subject. */
    actor: z.object({ type: z.string(), id: z.string(), onBehalfOf: z.string().optional() }),
    correlationId: z.string(),
    time: z.string(),
    /** The event's own payload: its keys are the event type's. */
    data: OpenRecord,
  })
  .meta({ id: 'AuditEntry' });

/** `next` is the `before` of the following page, null on the last. */
export const AuditMeta = z.object({ limit: z.number().int(), next: z.string().nullable() });
