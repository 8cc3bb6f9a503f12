import type { AppDeps } from '../../deps.ts';
import type { EventMetadata } from '../../kernel/es/event.ts';
import { handleCommand } from '../../kernel/es/handle-command.ts';
import type { CommandContext } from '../../kernel/http/command-meta.ts';
import { dict } from '../../kernel/safe/keys.ts';
import { SYSTEM_SITE } from '../../kernel/tenancy/site.ts';
import { findSite, listSites } from '../../../projections/sites/index.ts';
import { retentionDecider } from './retention.decider.ts';
import type { AppliedHorizon } from '../../contracts/retention/retention.events.ts';
import { retentionStream } from '../../contracts/retention/retention.events.ts';
import { horizonStart, isInstanceKind, resolveHorizons, type Horizon } from './retention.horizons.ts';
import { catalogue } from './retention.kinds.ts';

type Deps = Pick<AppDeps, 'db' | 'store' | 'config' | 'retentionKinds'>;

/** Every kind's horizon on `siteId` (`_system`: the environment and the defaults only). */
export async function horizonsOf(deps: Deps, siteId: string): Promise<Horizon[]> {
  const site = siteId === SYSTEM_SITE ? null : await findSite(deps.db, siteId);
  return resolveHorizons(catalogue(deps.retentionKinds()), site?.settings ?? null, deps.config);
}

/** What a run pruned, per kind, at its time. */
export interface RunResult {
  ranAt: string;
  counts: Record<string, number>;
}

/**
 * Prunes the read-model rows of `ctx.siteId` past their horizons (on `_system`, the instance's kinds: sessions),
 * then records the run as a `RetentionRun` event. The log itself is never pruned. Idempotent: a second run at the
 * same time finds nothing left to prune; after a projection rebuild it prunes what the rebuild brought back.
 */
export async function runRetention(deps: Deps, ctx: CommandContext): Promise<RunResult> {
  const instance = ctx.siteId === SYSTEM_SITE;
  const horizons = (await horizonsOf(deps, ctx.siteId)).filter(
    (h) => h.available && isInstanceKind(h.kind) === instance,
  );
  const kinds = new Map(catalogue(deps.retentionKinds()).flatMap((k) => (k.available ? [[k.kind, k] as const] : [])));
  const counts = dict<number>();
  const applied = dict<AppliedHorizon>();
  for (const h of horizons) {
    const before = horizonStart(ctx.now, h.days);
    counts[h.kind] = await kinds.get(h.kind)!.prune(deps.db, ctx.siteId, before);
    applied[h.kind] = { days: h.days, source: h.source, before: before.toISOString() };
  }
  const at = ctx.now.toISOString();
  await handleCommand(
    deps.store,
    retentionDecider,
    retentionStream(ctx.siteId),
    { type: 'RecordRetentionRun', data: { siteId: ctx.siteId, at, counts, horizons: applied } },
    { metadata: ctx.metadata },
  );
  return { ranAt: at, counts };
}

/** The context of a run the leader loop makes for a site (or `_system`), as the system. */
export function systemRunContext(siteId: string, now: Date): CommandContext {
  const metadata: EventMetadata = {
    siteId,
    actor: { type: 'system', id: 'retention' },
    correlationId: `retention:${siteId}:${now.toISOString()}`,
    causationId: null,
    requestId: null,
    occurredAt: now.toISOString(),
  };
  return { siteId, actor: metadata.actor, now, metadata };
}

/** The daily run: every site, then the instance's own kinds, each recorded as its own event. */
export async function runRetentionEverywhere(deps: Deps & Pick<AppDeps, 'clock'>): Promise<Map<string, RunResult>> {
  const now = deps.clock.now();
  const results = new Map<string, RunResult>();
  for (const site of await listSites(deps.db, null))
    results.set(site.id, await runRetention(deps, systemRunContext(site.id, now)));
  results.set(SYSTEM_SITE, await runRetention(deps, systemRunContext(SYSTEM_SITE, now)));
  return results;
}
