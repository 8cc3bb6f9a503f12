import type { Feature } from '../../deps.ts';
import { systemRoutes } from './http/system.routes.ts';

export const systemFeature: Feature = { name: 'system', projectors: [], routes: systemRoutes };
