import type { AppDeps } from '../../../deps.ts';
import { dueFlowRuns, nextFlowWorkAt } from '../../../../projections/flow-runs/index.ts';
import { advanceRun } from './flow-run.executor.ts';
import { tickSchedules } from './flow-schedule.ts';

export const FLOW_WORKER = 'flow-worker';
/** Runs `work` over `items` with at most `limit` at once. */
async function pool<T>(items: readonly T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const lane = async () => {
    while (next < items.length) await work(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane));
}

/**
 * One round of the flow worker (a leader loop: one node at a time): the schedule's tick, then the runs that are due
 * (just started, woken from a sleep, due for a retry) are advanced as far as they go: SVC_FLOW_ROUND of them, at most
 * SVC_FLOW_SITE_ROUND of one site taken in turns, and at most SVC_FLOW_SITE_CONCURRENCY runs of one site at once, so
 * that one busy site does not hold the others back. A run that fails unexpectedly (the database gone) is
 * left due and tried again next round. Returns the number of runs looked at.
 */
export async function runDueFlows(deps: AppDeps, opts: { maxActions?: number } = {}): Promise<number> {
  await tickSchedules(deps);
  const c = deps.config;
  const due = await dueFlowRuns(deps.db, deps.clock.now(), { total: c.SVC_FLOW_ROUND, perSite: c.SVC_FLOW_SITE_ROUND });
  const bySite = new Map<string, string[]>();
  for (const r of due) bySite.set(r.siteId, [...(bySite.get(r.siteId) ?? []), r.runId]);
  const limit = deps.config.SVC_FLOW_SITE_CONCURRENCY;
  const failures: unknown[] = [];
  await Promise.all(
    [...bySite].map(([siteId, runs]) =>
      pool(runs, limit, async (runId) => {
        // One run's unexpected failure (the database gone) leaves it due; the others of the round go on, and the
        // first failure is the round's (the loop logs it).
        await advanceRun({ deps, siteId }, runId, opts).catch((err: unknown) => void failures.push(err));
      }),
    ),
  );
  if (failures.length) throw failures[0];
  return due.length;
}

/** A round of the worker loop: the due runs, then when the next work is due (the loop sleeps until then). */
export async function flowWorkerRound(deps: AppDeps): Promise<Date | null> {
  await runDueFlows(deps);
  return nextFlowWorkAt(deps.db);
}
