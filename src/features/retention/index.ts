import type { Feature } from '../../deps.ts';
import { retentionRoutes } from './http/retention.routes.ts';
import { mailOutboxKind } from './retention.kinds.ts';
import { runRetentionEverywhere } from './retention.run.ts';

export { runRetention, runRetentionEverywhere, systemRunContext } from './retention.run.ts';
export { retentionStream, type RetentionRun } from '../../contracts/retention/retention.events.ts';

/** Names the leader lock of the daily run. */
export const RETENTION_LOOP = 'retention';

/**
 * Retention: every feature's `retention` kinds listed with their horizons and pruned past them, on demand for a
 * site (POST /api/v1/retention/run) and daily for every site and the instance by one node.
 */
export const retentionFeature: Feature = {
  name: 'retention',
  projectors: [],
  routes: retentionRoutes,
  retention: () => [mailOutboxKind],
  loops: (deps) => [
    {
      name: RETENTION_LOOP,
      intervalMs: deps.config.SVC_RETENTION_INTERVAL_MS,
      run: async () => void (await runRetentionEverywhere(deps)),
    },
  ],
};
