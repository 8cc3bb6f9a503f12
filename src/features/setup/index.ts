import type { Feature } from '../../deps.ts';
import { instanceProjector } from '../../../projections/instance/index.ts';
import { setupRoutes } from './http/setup.routes.ts';

export { runSetup, resumeSetup } from './run-setup.process.ts';
export const setupFeature: Feature = { name: 'setup', projectors: [instanceProjector], routes: setupRoutes };
