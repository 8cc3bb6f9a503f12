/**
 * The public surface of the item-versions read model: what slices and other read models may use.
 */
export { itemVersionsProjector } from './item-versions.projector.ts';
export { listItemVersions, revisionCount, type ItemVersionRecord } from './item-versions.queries.ts';
export { versionFieldsWithValues } from './item-versions.presence.ts';
