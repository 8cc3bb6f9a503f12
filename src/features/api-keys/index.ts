import type { Feature } from '../../deps.ts';
import { apiKeysProjector } from '../../../projections/api-keys/index.ts';
import { apiKeyAuthenticator } from './api-key-authenticator.ts';
import { apiKeysRoutes } from './http/api-keys.routes.ts';
import { parseApiKey } from './api-key.secrets.ts';

/** Site API keys: secret keys for servers, publishable keys for browsers; managed by site admins. */
export { revokeApiKey } from './api-key.commands.ts';
export { listApiKeys, publishableKeyOrigins } from '../../../projections/api-keys/index.ts';
export { API_KEY_EVENT_TYPES } from '../../contracts/api-keys/api-key.events.ts';

/** The id of a publishable key (`svck_pub_…`) as presented, unchecked; null for any other token. */
export const publishableKeyId = (token: string): string | null => {
  const parsed = parseApiKey(token);
  return parsed?.publishable ? parsed.id : null;
};

export const apiKeysFeature: Feature = {
  name: 'api-keys',
  projectors: [apiKeysProjector],
  routes: apiKeysRoutes,
  authenticators: (deps) => [apiKeyAuthenticator(deps.db, deps.store, deps.clock)],
};
