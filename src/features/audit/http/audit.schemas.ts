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

/**
 * A revision an agent made to an item the caller created: the values after the change (`data`), what the change
 * set (`delta`), the agent and when. Item values are the collection's own: every key is kept.
 */
export const AutomatedDecision = z
  .object({
    id: z.string(),
    collection: z.string(),
    itemId: z.string(),
    version: z.number().int(),
    action: z.enum(['create', 'update', 'delete', 'revert', 'restore', 'promote', 'publish']),
    data: OpenRecord,
    delta: OpenRecord,
    actor: z.object({ type: z.string(), id: z.string(), onBehalfOf: z.string().optional() }),
    committed: z.boolean(),
    timestamp: z.string(),
  })
  .meta({ id: 'AutomatedDecision' });

/** An offset list's meta (docs/decisions.md, "List metadata"). */
export const AutomatedDecisionsMeta = z.object({
  total: z.number().int(),
  limit: z.number().int(),
  offset: z.number().int(),
});
