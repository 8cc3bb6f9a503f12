import type { AppDeps } from '../../../deps.ts';
import { handleCommand } from '../../../kernel/es/handle-command.ts';
import { dueScheduledFlows } from '../../../../projections/flows/index.ts';
import { loadFlow } from '../flow.commands.ts';
import { nextCronRun } from '../flow-cron.ts';
import { flowDecider } from '../flow.decider.ts';
import { flowStream } from '../../../contracts/flows/flow.events.ts';
import { scheduledRunId } from '../../../contracts/flows/flow-run.events.ts';
import { runMetadata, startRun } from './flow-run.commands.ts';

/**
 * The schedule's tick (in the flow worker's leader loop): each active schedule flow whose firing has come starts
 * the run `<flowId>@<firing>` as a new stream (`no_stream`), then moves its schedule to the next firing after now.
 * Two ticks or two nodes start the run once (the second append is refused), and a crash between the two steps is
 * repaired by the next tick. No timer outlives the tick. Returns the runs it started.
 */
export async function tickSchedules(deps: AppDeps): Promise<string[]> {
  const now = deps.clock.now();
  const started: string[] = [];
  for (const due of await dueScheduledFlows(deps.db, now, 500)) {
    const { state, version } = await loadFlow(deps.store, due.siteId, due.flowId);
    if (state.status !== 'present' || state.flow.nextRunAt !== due.nextRunAt) continue;
    const flow = state.flow;
    const runId = scheduledRunId(flow.id, due.nextRunAt);
    const input = { scheduledFor: due.nextRunAt };
    const r = await startRun(deps, {
      siteId: due.siteId,
      flow,
      flowVersion: version,
      trigger: 'schedule',
      input,
      runId,
      // A firing the site's budget of roots refuses is recorded as a failed run that says why.
      recordRefusal: true,
      now,
    });
    if (r.started && !r.refused) started.push(r.runId);
    const cron = flow.definition.triggerOptions.cron;
    const next = typeof cron === 'string' ? nextCronRun(cron, now) : null;
    const data = {
      flowId: flow.id,
      now: now.toISOString(),
      firedFor: due.nextRunAt,
      nextRunAt: next?.toISOString() ?? null,
    };
    await handleCommand(
      deps.store,
      flowDecider,
      flowStream(due.siteId, flow.id),
      { type: 'AdvanceSchedule', data },
      {
        metadata: {
          ...runMetadata(due.siteId, flow.id, runId, now),
          actor: { type: 'scheduler', id: 'flow-scheduler' },
        },
      },
    );
  }
  return started;
}
