/**
 * The public surface of the releases read model: what slices and other read models may use.
 */
export { releasesProjector } from './releases.projector.ts';
export { dueReleases, findRelease, listReleases, type ReleaseRecord } from './releases.queries.ts';
