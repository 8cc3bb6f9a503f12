/**
 * The public surface of the schema read model: what slices and other read models may use.
 */
export { schemaProjector } from './schema.projector.ts';
export * from './schema.queries.ts';
