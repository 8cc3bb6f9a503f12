import type { Feature } from '../../deps.ts';
import { envelopeMigrateRoutes } from './http/envelope-migrate.routes.ts';

/** Field-encryption administration: re-wrapping item envelopes under the active key. */
export const encryptionFeature: Feature = { name: 'encryption', projectors: [], routes: envelopeMigrateRoutes };
