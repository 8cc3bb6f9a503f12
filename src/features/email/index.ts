import type { FastifyPluginAsync } from 'fastify';
import type { AppDeps, Feature } from '../../deps.ts';
import { emailSuppressionsProjector } from '../../../projections/email-suppressions/index.ts';
import { suppressionsRoutes } from './http/suppressions.routes.ts';
import { unsubscribeRoutes } from './http/unsubscribe.routes.ts';

/**
 * For other slices:
 * - `queueMarketingMail(deps, { siteId, to, subject, body })`: skips a suppressed address (`{ queued: false, reason:
 *   'suppressed' }`), else queues the mail with its List-Unsubscribe headers.
 * - `isSuppressed(deps, siteId, email)`, `unsubscribeToken(deps, siteId, email)`, `unsubscribeUrl(deps, siteId, email)`.
 * - `shredSuppressedAddress(deps, siteId, email)`: erasure; the list then shows `email: null` beside the hash.
 * - `normaliseAddress(email)`: the form suppressions compare (trim, NFC, lower case).
 */
export { queueMarketingMail, type MarketingMail, type MarketingOutcome } from './marketing-mail.ts';
export { isSuppressed, shredSuppressedAddress } from './suppression.commands.ts';
export { unsubscribeToken, unsubscribeUrl } from './unsubscribe-token.ts';
export { normaliseAddress } from './address.ts';

const routes: FastifyPluginAsync<AppDeps> = async (app, deps) => {
  await app.register(suppressionsRoutes, deps);
  await app.register(unsubscribeRoutes, deps);
};

/** Email suppressions (admin list) and the one-click unsubscribe link that feeds it. */
export const emailFeature: Feature = {
  name: 'email',
  projectors: [emailSuppressionsProjector],
  routes,
};
