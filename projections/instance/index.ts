/**
 * The public surface of the instance read model: what slices and other read models may use.
 */
export { instanceProjector, instanceState } from './instance.projector.ts';
