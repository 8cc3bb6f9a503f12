import type { Feature } from '../../deps.ts';
import { schemaProjector } from '../../../projections/schema/schema.projector.ts';
import { schemaRoutes } from './http/schema.routes.ts';

export { schemaStream } from './schema.events.ts';
export const schemaFeature: Feature = { name: 'schema', projectors: [schemaProjector], routes: schemaRoutes };
