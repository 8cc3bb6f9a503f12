import type { Feature } from '../../deps.ts';
import { presetsProjector } from '../../../projections/presets/index.ts';
import { presetsRoutes } from './http/presets.routes.ts';

/** View presets and bookmarks per user, role (inherited down the role chain) and site, kept in step with the schema. */
export const presetsFeature: Feature = {
  name: 'presets',
  projectors: [presetsProjector],
  routes: presetsRoutes,
};
