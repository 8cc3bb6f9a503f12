/**
 * The public surface of the item-versions read model: what slices and other read models may use.
 */
export { itemVersionsProjector, listItemVersions, revisionCount } from './item-versions.projector.ts';
