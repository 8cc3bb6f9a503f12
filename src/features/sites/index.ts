import type { Feature } from '../../deps.ts';
import { sitesProjector } from '../../../projections/sites/sites.projector.ts';
import { siteActivityProjector } from '../../../projections/site-activity/site-activity.projector.ts';
import { sitesRoutes } from './http/sites.routes.ts';

export { findSite } from '../../../projections/sites/sites.queries.ts';

export const sitesFeature: Feature = {
  name: 'sites',
  projectors: [sitesProjector, siteActivityProjector],
  routes: sitesRoutes,
};
