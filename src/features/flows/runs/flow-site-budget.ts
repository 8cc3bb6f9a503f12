import type { AppDeps } from '../../../deps.ts';
import { rateHeaders } from '../../../platform/rate-limit/enforce.ts';
import { readAsSite } from '../../../kernel/tenancy/site.ts';
import { countLiveRuns } from '../../../../projections/flow-runs/index.ts';
import type { StepError } from '../../../contracts/flows/flow-run.events.ts';

/** The part of a site's budget of root runs that refuses another: its live runs, or its root starts per minute. */
export type SiteBudgetKind = 'site_live_runs' | 'site_root_rate';

/** Why a site may not start another root run now, and when to ask again. */
export interface SiteRefusal {
  budget: SiteBudgetKind;
  limit: number;
  retryAfter: number;
  headers: Record<string, string>;
}

/** Live runs end as the worker advances them: a caller refused for them asks again after this many seconds. */
const LIVE_RETRY_S = 5;

const VARIABLES = new Map<SiteBudgetKind, string>([
  ['site_live_runs', 'SVC_FLOW_SITE_LIVE_RUNS'],
  ['site_root_rate', 'SVC_FLOW_SITE_ROOTS_PER_MINUTE'],
]);

/**
 * Whether the site may start another root run (a tree's budget bounds what a root causes; this bounds the roots, which
 * an API key's loop or an outside caller can start at will): its live runs under SVC_FLOW_SITE_LIVE_RUNS, then one
 * start counted against SVC_FLOW_SITE_ROOTS_PER_MINUTE by the shared limiter (across nodes with Redis). A start the
 * live runs refuse is not counted. The live count reads the read model: starts racing may pass the cap by as many as
 * race, and in the subscription mode it counts as of the read model's lag.
 */
export async function siteRootRefusal(
  deps: Pick<AppDeps, 'db' | 'config' | 'limiter'>,
  siteId: string,
): Promise<SiteRefusal | null> {
  const cap = deps.config.SVC_FLOW_SITE_LIVE_RUNS;
  const live = await readAsSite(deps.db, siteId, (db) => countLiveRuns(db, siteId, cap));
  if (live >= cap) return { budget: 'site_live_runs', limit: cap, retryAfter: LIVE_RETRY_S, headers: {} };
  const rule = { max: deps.config.SVC_FLOW_SITE_ROOTS_PER_MINUTE, windowS: 60 };
  const v = await deps.limiter.hit(`flow-roots:${siteId}`, rule);
  if (v.allowed) return null;
  return { budget: 'site_root_rate', limit: rule.max, retryAfter: v.resetS, headers: rateHeaders(v) };
}

/** The error a refused root run records (an event's, a schedule's): which part of the site's budget, and its limit. */
export function siteBudgetError(r: SiteRefusal, siteId: string): StepError {
  const what =
    r.budget === 'site_live_runs'
      ? `site ${siteId} has ${r.limit} live flow runs, the most it may have`
      : `site ${siteId} started ${r.limit} root flow runs in the last minute, the most it may start`;
  return {
    code: 'BUDGET_EXCEEDED',
    message: `${what} (${VARIABLES.get(r.budget)})`,
    extensions: { budget: r.budget, limit: r.limit },
  };
}
