import { z } from 'zod';
import { RETENTION_KINDS } from '../../../kernel/retention.ts';

/** One kind's horizon on the active site, and where its days come from. */
export const HorizonRecord = z
  .object({
    kind: z.enum(RETENTION_KINDS),
    days: z.number().int(),
    source: z.enum(['site', 'env', 'default']),
    /** `instance`: rows of the whole service (sessions), pruned by the daily run; a site setting does not apply. */
    scope: z.enum(['site', 'instance']),
    /** False while no slice prunes the kind (the horizon is the contract it will follow). */
    available: z.boolean(),
    describe: z.string(),
  })
  .meta({ id: 'RetentionHorizon' });

/** What a run pruned on the active site: rows per kind. */
export const RetentionRunRecord = z
  .object({
    ranAt: z.string(),
    counts: z.record(z.string(), z.number().int().min(0)),
  })
  .meta({ id: 'RetentionRun' });
