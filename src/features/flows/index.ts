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
import { FLOW_WORKER, flowWorkerRound } from './runs/flow-run.worker.ts';
import { FLOW_EVENT_TYPES } from '../../contracts/flows/flow.events.ts';
import { flowEventTrigger } from './runs/flow-event.reactor.ts';

export { shredRunsConcerning } from './runs/flow-run.privacy.ts';

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
      // Woken by a run started and by a flow changed (its schedule); else it sleeps until the next run is due.
      wakeOn: ['FlowRunStarted', ...FLOW_EVENT_TYPES],
      idleMs: 60_000,
      run: () => flowWorkerRound(deps),
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
