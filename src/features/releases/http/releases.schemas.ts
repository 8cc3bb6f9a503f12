import { z } from 'zod';

const ReleaseItemRecord = z.object({
  collection: z.string(),
  itemId: z.string(),
  targetStatus: z.string(),
  revisionId: z.string().nullable().optional(),
});

/** What publishing did to one item; `reason` says why it was skipped or failed (e.g. EDITORIAL_GATE_REQUIRED). */
export const OutcomeRecord = z
  .object({
    collection: z.string(),
    itemId: z.string(),
    outcome: z.enum(['published', 'skipped', 'failed']),
    reason: z.string().optional(),
  })
  .meta({ id: 'ReleaseOutcome' });

/** A release with its items and, once published, the outcome of each. */
export const ReleaseRecord = z
  .object({
    id: z.string(),
    name: z.string(),
    atomicityMode: z.enum(['all_or_nothing', 'best_effort']),
    publishAt: z.string().nullable(),
    maintenanceWindow: z
      .object({ windows: z.array(z.object({ dow: z.number().int(), start: z.string(), end: z.string() })) })
      .nullable(),
    status: z.enum(['draft', 'scheduled', 'published', 'partially_failed', 'failed']),
    publishing: z.boolean(),
    items: z.array(ReleaseItemRecord),
    outcomes: z.array(OutcomeRecord),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .meta({ id: 'Release' });

/** A page list's meta (docs/decisions.md, "List metadata"): pageSize is the `limit` in force. */
export const ReleaseListMeta = z.object({
  total: z.number().int(),
  page: z.number().int(),
  pageSize: z.number().int(),
});

export const PublishResult = z.object({
  release: ReleaseRecord,
  status: z.string(),
  outcomes: z.array(OutcomeRecord),
});
