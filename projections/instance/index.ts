/**
 * The public surface of the instance read model: what slices and other read models may use.
 */
export { instanceProjector } from './instance.projector.ts';
export { instanceState } from './instance.queries.ts';
