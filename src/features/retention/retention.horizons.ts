import type { Config } from '../../config.ts';
import {
  INSTANCE_RETENTION_KINDS,
  RETENTION_MAX_DAYS,
  RETENTION_MIN_DAYS,
  type RetentionKindName,
} from '../../kernel/retention.ts';
import { own } from '../../kernel/safe/keys.ts';
import type { CatalogueEntry } from './retention.kinds.ts';

/** A kind's horizon on a site: its days and where they came from. */
export interface Horizon {
  kind: RetentionKindName;
  days: number;
  source: 'site' | 'env' | 'default';
  scope: 'site' | 'instance';
  available: boolean;
  describe: string;
}

const DAY_MS = 86_400_000;

const validDays = (v: unknown): number | undefined =>
  typeof v === 'number' && Number.isInteger(v) && v >= RETENTION_MIN_DAYS && v <= RETENTION_MAX_DAYS ? v : undefined;

export const isInstanceKind = (kind: string): boolean => (INSTANCE_RETENTION_KINDS as readonly string[]).includes(kind);

/**
 * Each kind's horizon: the site's `retention` setting (site kinds only), then SVC_RETENTION_<KIND>_DAYS, then the
 * kind's documented default. Settings are read with own-property lookups, so a stored key never reaches a prototype.
 */
export function resolveHorizons(
  entries: readonly CatalogueEntry[],
  settings: Record<string, unknown> | null,
  config: Config,
): Horizon[] {
  const retention = own(settings ?? {}, 'retention');
  const site = retention !== null && typeof retention === 'object' ? (retention as Record<string, unknown>) : {};
  const env = config as unknown as Record<string, unknown>;
  return entries.map((k) => {
    const instance = isInstanceKind(k.kind);
    const fromSite = instance ? undefined : validDays(own(site, k.kind));
    const fromEnv = validDays(own(env, k.envKey));
    const [days, source] =
      fromSite !== undefined
        ? [fromSite, 'site' as const]
        : fromEnv !== undefined
          ? [fromEnv, 'env' as const]
          : [k.defaultDays, 'default' as const];
    return {
      kind: k.kind,
      days,
      source,
      scope: instance ? 'instance' : 'site',
      available: k.available,
      describe: k.describe,
    };
  });
}

/** The instant before which a row that ended is past a horizon of `days` at `now`. */
export const horizonStart = (now: Date, days: number): Date => new Date(now.getTime() - days * DAY_MS);
