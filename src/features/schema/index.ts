import type { Feature } from '../../deps.ts';
import { schemaProjector } from '../../../projections/schema/index.ts';
import { schemaRoutes } from './http/schema.routes.ts';

export { schemaStream } from '../../contracts/schema/schema.events.ts';
export { NAME_PATTERN, type FieldDef, type FieldType, type Workflow } from '../../contracts/schema/schema.types.ts';
export { FILES_COLLECTION, isSystemCollection } from '../../contracts/schema/system-collections.types.ts';
export { CollectionNotFound } from './schema.errors.ts';
export const schemaFeature: Feature = { name: 'schema', projectors: [schemaProjector], routes: schemaRoutes };
export { schemaSnapshot, snapshotOf, type SchemaSnapshot, type SnapshotCollection } from './schema.snapshot.ts';
export type { CollectionDef, RelationDef, SubjectDef } from '../../contracts/schema/schema.types.ts';
export { isVersioned, itemSubjectId } from '../../contracts/schema/schema.types.ts';
export {
  CARRIER_TYPES,
  convertible,
  fieldWithDefaults,
  FIELD_TYPES,
  PRIMARY_KEY_TYPES,
  RELATION_KINDS,
  ON_DELETE,
  SYSTEM_FIELDS,
} from '../../contracts/schema/schema.types.ts';
export {
  checkFieldAttributes,
  CreateCollectionBody,
  CreateFieldBody,
  fieldShape,
  RelationRecord,
} from './http/schema.schemas.ts';
export { schemaDecider, type PlanStep, type SchemaState } from './schema.decider.ts';
export type { PlanSummary } from '../../contracts/schema/schema.events.ts';
