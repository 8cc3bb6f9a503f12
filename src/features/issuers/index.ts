import type { Feature } from '../../deps.ts';
import { trustedIssuersProjector } from '../../../projections/trusted-issuers/index.ts';
import { externalAuthenticator } from './external-authenticator.ts';
import { issuersRoutes } from './http/issuers.routes.ts';

export { enabledIssuers, findIssuer, listIssuers } from '../../../projections/trusted-issuers/index.ts';

/** Trusted external identity providers per site, and the authenticator that accepts their JWTs. */
export const issuersFeature: Feature = {
  name: 'issuers',
  projectors: [trustedIssuersProjector],
  routes: issuersRoutes,
  authenticators: (deps) => [externalAuthenticator(deps)],
};
