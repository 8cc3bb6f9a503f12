import type { Feature } from '../../deps.ts';
import { sitesProjector } from '../../../projections/sites/index.ts';
import { siteActivityProjector } from '../../../projections/site-activity/index.ts';
import { sitesRoutes } from './http/sites.routes.ts';

export { findSite, siteCorsSettings, siteCreator } from '../../../projections/sites/index.ts';
export { SITE_EVENT_TYPES } from '../../contracts/sites/site.events.ts';
export { createSite, deleteSite, updateSite } from './site.commands.ts';
export { SiteRecord } from './http/sites.schemas.ts';

export const sitesFeature: Feature = {
  name: 'sites',
  projectors: [sitesProjector, siteActivityProjector],
  routes: sitesRoutes,
};
export { SettingsBody } from './http/sites.schemas.ts';
export { siteDecider } from './site.decider.ts';
export { siteStream, type SiteSettings } from '../../contracts/sites/site.events.ts';
