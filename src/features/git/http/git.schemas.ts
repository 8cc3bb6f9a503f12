import { ImportResultRecord } from '../../config/index.ts';
import { z } from 'zod';
import { GIT_PROVIDERS } from '../../../contracts/git/git.events.ts';
import { CI_STATES } from '../../../contracts/git/git.observations.ts';
import { IntegrationRecord } from '../git.schema.ts';

export const IntegrationParams = z.object({ id: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, 'an integration id') });
export const CreatedIntegration = IntegrationRecord.extend({
  webhookSecret: z.string().optional().describe('The webhook secret made for this integration: shown this once'),
});
export const PageQuery = z.object({
  limit: z.coerce.number().int().min(1).max(200).default(25),
  offset: z.coerce.number().int().min(0).max(1_000_000).default(0),
});
export const PageMeta = z.object({ total: z.number().int(), limit: z.number().int(), offset: z.number().int() });
export const DeliveryRecord = z.object({
  provider: z.enum(GIT_PROVIDERS),
  deliveryId: z.string(),
  event: z.string(),
  receivedAt: z.string(),
});
export const ReceiverParams = z.object({
  provider: z.string().max(20),
  siteId: z.string().max(200),
  integrationId: z.string().max(200),
});
export const ReceiptAnswer = z.object({ deliveryId: z.string(), duplicate: z.boolean() });

const integrationId = z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, 'an integration id');
export const PullRequestQuery = PageQuery.extend({
  integrationId: integrationId.optional(),
  state: z.enum(['open', 'closed', 'merged']).optional(),
});
export const PullRequestRecord = z.object({
  integrationId: z.string(),
  number: z.number().int(),
  title: z.string(),
  state: z.enum(['open', 'closed', 'merged']),
  action: z.string().describe("The provider's word for the last change: opened, synchronize, closed, …"),
  headRef: z.string(),
  headSha: z.string(),
  baseRef: z.string(),
  url: z.string().nullable(),
  updatedAt: z.string(),
});
export const CiQuery = PageQuery.extend({
  integrationId: integrationId.optional(),
  state: z.enum(CI_STATES).optional(),
  sha: z
    .string()
    .regex(/^[0-9a-f]{7,64}$/i, 'a commit id')
    .optional(),
  ref: z.string().min(1).max(255).optional(),
});
export const CiRunRecord = z.object({
  integrationId: z.string(),
  source: z.enum(['check_run', 'status', 'pipeline']),
  runId: z.string(),
  name: z.string(),
  sha: z.string(),
  ref: z.string().nullable(),
  state: z.enum(CI_STATES),
  url: z.string().nullable(),
  updatedAt: z.string(),
});

export const SyncBody = z
  .object({
    dryRun: z.boolean().default(false).describe('Read the intents and report the drift; apply nothing'),
  })
  .strict()
  .default({ dryRun: false });
const Drift = z.object({
  path: z.string().nullable(),
  collection: z.string(),
  itemId: z.string(),
  fields: z.array(z.string()).optional(),
});
export const SyncReportRecord = z.object({
  sha: z.string(),
  branch: z.string(),
  dryRun: z.boolean(),
  files: z.number().int(),
  intents: z.number().int(),
  drift: z.object({
    missing: z.array(Drift),
    different: z.array(Drift),
    extra: z.array(Drift).describe('Items the repository declared before and no longer does (left as they are)'),
    inSync: z.number().int(),
  }),
  applied: z.array(
    z.object({
      path: z.string(),
      collection: z.string(),
      itemId: z.string(),
      action: z.enum(['created', 'updated']),
      fields: z.array(z.string()),
    }),
  ),
  refused: z.array(
    z.object({ path: z.string(), collection: z.string(), itemId: z.string(), code: z.string(), message: z.string() }),
  ),
  config: ImportResultRecord.extend({
    path: z.string(),
    skipped: z
      .array(z.string())
      .optional()
      .describe("On a preview: the manifest's keys not applied there (webhooks, settings)"),
  })
    .nullable()
    .describe("The repository's configuration manifest (svc.config.*), planned and, unless a dry run, applied first"),
});
export const ProvenanceQuery = PageQuery.extend({
  collection: z.string().min(1).max(64).optional(),
  itemId: z.string().min(1).max(200).optional(),
  field: z.string().min(1).max(64).optional(),
  sha: z
    .string()
    .regex(/^[0-9a-f]{7,64}$/i, 'a commit id')
    .optional(),
  integrationId: integrationId.optional(),
});
export const ProvenanceRecord = z.object({
  collection: z.string(),
  itemId: z.string(),
  field: z.string(),
  integrationId: z.string(),
  sha: z.string(),
  path: z.string(),
  setAt: z.string(),
});

export const PreviewQuery = PageQuery.extend({
  integrationId: integrationId.optional(),
  state: z.enum(['provisioning', 'live', 'torn_down']).optional(),
});
export const PreviewRecord = z.object({
  integrationId: z.string(),
  number: z.number().int(),
  siteId: z.string().describe('The preview site: <base>--pr-<number> (then -2, -3… for later previews of it)'),
  state: z.enum(['provisioning', 'live', 'torn_down']),
  headSha: z.string().nullable(),
  copied: z.number().int().describe('Events copied from the base site when it was seeded'),
  intents: z.object({ applied: z.number().int(), refused: z.number().int(), error: z.string().nullable() }).nullable(),
  reason: z.string().nullable().describe('Why it was torn down'),
  startedAt: z.string(),
  updatedAt: z.string(),
});
