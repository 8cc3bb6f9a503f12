import type { Feature } from '../../deps.ts';
import { erasuresProjector } from '../../../projections/erasures/index.ts';
import { resumeErasures } from './erasure.commands.ts';
import { erasureRoutes } from './http/erasure.routes.ts';

/** Names the leader lock of the loop that completes erasures cut short. */
export const ERASURE_RESUME_LOOP = 'erasure-resume';

export { resumeErasures } from './erasure.commands.ts';

/** Erasure of a person by crypto-shredding, with its proof; erasures cut short are completed by one node. */
export const erasureFeature: Feature = {
  name: 'erasure',
  projectors: [erasuresProjector],
  routes: erasureRoutes,
  loops: (deps) => [
    {
      name: ERASURE_RESUME_LOOP,
      intervalMs: deps.config.SVC_ERASURE_RESUME_MS,
      run: async () => void (await resumeErasures(deps, deps.config.SVC_ERASURE_RESUME_MS)),
    },
  ],
};
