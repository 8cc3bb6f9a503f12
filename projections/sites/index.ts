/**
 * The public surface of the sites read model: what slices and other read models may use.
 */
export { sitesProjector } from './sites.projector.ts';
export { findSite, listSites, siteCorsSettings, siteCreator } from './sites.queries.ts';
