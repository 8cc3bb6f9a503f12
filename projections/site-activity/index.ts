/**
 * The public surface of the site-activity read model: what slices and other read models may use.
 */
export { siteActivity, siteActivityProjector } from './site-activity.projector.ts';
