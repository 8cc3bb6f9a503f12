import type { Feature } from '../../deps.ts';
import { erasureRoutes } from './http/erasure.routes.ts';

/** Erasure of a person by crypto-shredding, with its proof. */
export const erasureFeature: Feature = { name: 'erasure', projectors: [], routes: erasureRoutes };
