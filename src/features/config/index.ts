import type { Feature } from '../../deps.ts';
import { configRoutes } from './http/config.routes.ts';

/** Configuration as code: manifests of a site's schema, webhooks and settings; plans; atomic applies. */
export const configFeature: Feature = { name: 'config', projectors: [], routes: configRoutes };

export { importConfig, type ImportResult } from './config.commands.ts';
export { ImportResult as ImportResultRecord } from './http/config.schemas.ts';
