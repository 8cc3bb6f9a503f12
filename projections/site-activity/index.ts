/**
 * The public surface of the site-activity read model: what slices and other read models may use.
 */
export { siteActivityProjector } from './site-activity.projector.ts';
export { siteActivity } from './site-activity.queries.ts';
