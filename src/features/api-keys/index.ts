import type { Feature } from '../../deps.ts';
import { apiKeysProjector } from '../../../projections/api-keys/index.ts';
import { apiKeyAuthenticator } from './api-key-authenticator.ts';
import { apiKeysRoutes } from './http/api-keys.routes.ts';

/** Site API keys: secret keys for servers, publishable keys for browsers; managed by site admins. */
export { revokeApiKey } from './api-key.commands.ts';
export { listApiKeys } from '../../../projections/api-keys/index.ts';

export const apiKeysFeature: Feature = {
  name: 'api-keys',
  projectors: [apiKeysProjector],
  routes: apiKeysRoutes,
  authenticators: (deps) => [apiKeyAuthenticator(deps.db, deps.store, deps.clock)],
};
