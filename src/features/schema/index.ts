import type { Feature } from '../../deps.ts';
import { schemaProjector } from '../../../projections/schema/index.ts';
import { schemaRoutes } from './http/schema.routes.ts';

export const schemaFeature: Feature = { name: 'schema', projectors: [schemaProjector], routes: schemaRoutes };
export { CollectionNotFound } from './schema.errors.ts';
export { schemaSnapshot } from './schema.snapshot.ts';
export { schemaDecider, type PlanStep } from './schema.decider.ts';
/** The schema records and predicates the item engine takes from here; other slices import src/contracts/schema. */
export {
  isVersioned,
  itemSubjectId,
  NAME_PATTERN,
  type FieldDef,
  type Workflow,
} from '../../contracts/schema/schema.types.ts';
export { isSystemCollection } from '../../contracts/schema/system-collections.types.ts';
