import type { Kysely } from 'kysely';
import type { DB } from './db/database.ts';

/**
 * The retention contract: every kind of read-model row the service keeps for a limited time, whether or not a
 * slice prunes it yet. The names are the keys of a site's `retention` setting and of `SVC_RETENTION_<KIND>_DAYS`;
 * slices declare how they prune (`Feature.retention`), the retention slice lists and runs them.
 */
export const SITE_RETENTION_KINDS = [
  'activity',
  'notifications',
  'mail_outbox',
  'webhook_deliveries',
  'flow_runs',
  'sar_exports',
] as const;
/** Kinds whose rows belong to the instance, not to a site (sessions of instance-wide accounts). */
export const INSTANCE_RETENTION_KINDS = ['sessions'] as const;
export const RETENTION_KINDS = [...SITE_RETENTION_KINDS, ...INSTANCE_RETENTION_KINDS] as const;

export type SiteRetentionKindName = (typeof SITE_RETENTION_KINDS)[number];
export type RetentionKindName = (typeof RETENTION_KINDS)[number];

/** A horizon in days: at least one day, at most a hundred years. */
export const RETENTION_MIN_DAYS = 1;
export const RETENTION_MAX_DAYS = 36_500;

/** The environment variable that sets a kind's horizon for every site without a setting of its own. */
export const retentionEnvKey = (kind: RetentionKindName) => `SVC_RETENTION_${kind.toUpperCase()}_DAYS` as const;

/**
 * What a slice keeps for a limited time and how it prunes it. `prune` deletes read-model rows (never events) that
 * ended before `before`, of the site `siteId` only (`_system` for an instance kind), and answers how many it
 * deleted; run again with the same `before` it deletes nothing.
 */
export interface RetentionKind {
  kind: RetentionKindName;
  defaultDays: number;
  envKey: string;
  describe: string;
  prune(db: Kysely<DB>, siteId: string, before: Date): Promise<number>;
}
