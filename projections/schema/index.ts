/**
 * The public surface of the schema read model: what slices and other read models may use.
 */
export { schemaProjector } from './schema.projector.ts';
export * from './schema.queries.ts';
/** A site's schema as slices and other read models use it, and its reader cached by schema version. */
export {
  fieldDef,
  INDEXED_TYPES,
  loadSiteSchema,
  NUMERIC_TYPES,
  relationIndex,
  relationOn,
  TIME_TYPES,
  valueExpr,
  valueType,
  type SiteSchema,
} from './site-schema.ts';
export { schemaReader, type SchemaReader } from './schema-reader.ts';
