import type { Feature } from '../../deps.ts';
import type { FastifyPluginAsync } from 'fastify';
import type { AppDeps } from '../../deps.ts';
import { flowsProjector } from '../../../projections/flows/index.ts';
import { flowRunsProjector, pruneFinishedRuns } from '../../../projections/flow-runs/index.ts';
import { flowRunSubjectsProjector } from '../../../projections/flow-run-subjects/index.ts';
import { retentionEnvKey } from '../../kernel/retention.ts';
import { readAsSite } from '../../kernel/tenancy/site.ts';
import { flowsRoutes } from './http/flows.routes.ts';
import { flowRunsRoutes } from './http/flow-runs.routes.ts';
import { flowWebhookRoutes } from './http/flow-webhook.routes.ts';
import { FLOW_WORKER, runDueFlows } from './runs/flow-run.worker.ts';
import { flowEventTrigger } from './runs/flow-event.reactor.ts';

/**
 * For the runs and triggers of flows (and any slice that starts one):
 * - `liveFlow(store, siteId, flowId)`, `loadFlow`: a flow's definition folded from its stream (`FlowEntry`, with
 *   `tokenHash` for the webhook trigger: compare `hashFlowToken(presented)` in constant time).
 * - `OPERATIONS` / `OperationSpec`: each operation's zod options, hint and edges; `entryNodes`, `successor`: where a
 *   run starts and which node a step leaves to; `renderTemplate`, `compileCondition`, `lookup`: the pure steps.
 * - `nextCronRun(cron, now)`: the schedule's next firing after a run; `MAX_TRIGGER_DEPTH`, `MAX_SLEEP_MS`,
 *   `REQUEST_LIMITS`: the bounds a runner enforces.
 */
export {
  flowStream,
  FLOW_EVENT_TYPES,
  type FlowDefinition,
  type FlowEvent,
  type FlowGraph,
} from '../../contracts/flows/flow.events.ts';
export { hashFlowToken, liveFlow, loadFlow } from './flow.commands.ts';
export type { FlowEntry, FlowState } from './flow.decider.ts';
export { entryNodes, successor, FLOW_LIMITS } from './flow-graph.ts';
export { nextCronRun } from './flow-cron.ts';
export { renderTemplate, lookup, TemplateError, type DataChain } from './flow-template.ts';
export { compileCondition, ConditionError } from './flow-condition.ts';
export {
  OPERATIONS,
  MAX_TRIGGER_DEPTH,
  MAX_SLEEP_MS,
  REQUEST_LIMITS,
  type OperationSpec,
} from './operations/registry.ts';
export { flowGuard } from './flow.guard.ts';
export { shredRunsConcerning } from './runs/flow-run.privacy.ts';
export {
  flowRunStream,
  type FlowRunFailed,
  type FlowRunStarted,
  type FlowRunSucceeded,
} from '../../contracts/flows/flow-run.events.ts';

const routes: FastifyPluginAsync<AppDeps> = async (app, deps) => {
  await app.register(flowsRoutes, deps);
  await app.register(flowRunsRoutes, deps);
  await app.register(flowWebhookRoutes, deps);
};

/** Flows: automation graphs per site, their runs (each a stream) and the worker that advances them. */
export const flowsFeature: Feature = {
  name: 'flows',
  projectors: [flowsProjector, flowRunsProjector, flowRunSubjectsProjector],
  routes,
  reactors: (deps) => [flowEventTrigger(deps)],
  loops: (deps) => [
    {
      name: FLOW_WORKER,
      intervalMs: deps.config.SVC_FLOW_INTERVAL_MS,
      run: async () => void (await runDueFlows(deps)),
    },
  ],
  retention: () => [
    {
      kind: 'flow_runs',
      defaultDays: 90,
      envKey: retentionEnvKey('flow_runs'),
      describe: 'Finished flow runs (succeeded or failed) and their step history; runs under way are kept.',
      prune: (db, siteId, before) => readAsSite(db, siteId, (trx) => pruneFinishedRuns(trx, siteId, before)),
    },
  ],
};
