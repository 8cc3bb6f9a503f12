import type { Feature } from '../../deps.ts';
import { releasesProjector } from '../../../projections/releases/index.ts';
import { releasesRoutes } from './http/releases.routes.ts';
import { releasePublisher } from './publish.reactor.ts';
import { sweepDueReleases } from './scheduler.ts';

export { sweepDueReleases } from './scheduler.ts';

export const releasesFeature: Feature = {
  name: 'releases',
  projectors: [releasesProjector],
  routes: releasesRoutes,
  reactors: (deps) => [releasePublisher(deps)],
  loops: (deps) => [
    {
      name: 'content-scheduler',
      intervalMs: deps.config.SVC_SCHEDULER_INTERVAL_MS,
      run: async () => void (await sweepDueReleases(deps)),
    },
  ],
};
