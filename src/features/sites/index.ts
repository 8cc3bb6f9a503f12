import type { Feature } from '../../deps.ts';
import { sitesProjector } from '../../../projections/sites/index.ts';
import { siteActivityProjector } from '../../../projections/site-activity/index.ts';
import { sitesRoutes } from './http/sites.routes.ts';

export { createSite, deleteSite, updateSite } from './site.commands.ts';
export { SettingsBody, SiteRecord } from './http/sites.schemas.ts';
export { siteDecider } from './site.decider.ts';

export const sitesFeature: Feature = {
  name: 'sites',
  projectors: [sitesProjector, siteActivityProjector],
  routes: sitesRoutes,
};
