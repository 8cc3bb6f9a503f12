import type { Feature } from '../../deps.ts';
import { schemaProjector } from '../../../projections/schema/index.ts';
import { schemaRoutes } from './http/schema.routes.ts';

export const schemaFeature: Feature = { name: 'schema', projectors: [schemaProjector], routes: schemaRoutes };
export { CollectionNotFound } from './schema.errors.ts';
export { schemaSnapshot } from './schema.snapshot.ts';
export { schemaDecider, type PlanStep } from './schema.decider.ts';
