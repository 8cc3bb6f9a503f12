import type { FastifyPluginAsync } from 'fastify';
import type { AppDeps, Feature } from '../../deps.ts';
import { retentionEnvKey } from '../../kernel/retention.ts';
import { usersProjector } from '../../../projections/users/index.ts';
import { pruneEndedSessions, sessionsProjector } from '../../../projections/sessions/index.ts';
import { accountRoutes } from './http/account.routes.ts';
import { adminSessionsRoutes } from './http/admin-sessions.routes.ts';
import { authRoutes } from './http/auth.routes.ts';
import { meRoutes } from './http/me.routes.ts';
import { internalAuthenticator } from './internal-authenticator.ts';
import { scimAuthenticator } from './scim-authenticator.ts';
import { scimRoutes } from './http/scim.routes.ts';
import { tfaRoutes } from './tfa/http/tfa.routes.ts';
import { usersRoutes } from './users/users.routes.ts';
import { inviteRoutes } from './users/invite.routes.ts';
import { impersonateRoutes } from './users/impersonate.routes.ts';
import { authPersonalData } from './personal-data.ts';
import { checkPassword } from './password-policy.ts';
import { hashPassword } from './passwords.ts';
import { grantSiteRole, registerUser } from './user.commands.ts';
import { currentUser, passwordStepUp } from './http/caller.ts';

export { provisionExternalUser } from './external-users.ts';
export { TokenService } from './tokens.ts';
export { userActor } from './internal-authenticator.ts';
export { stepUpError } from './tfa/step-up.ts';
export { Session } from './http/auth.schemas.ts';
export { startSession } from './http/session-http.ts';
export { revokeAllSessions } from './session.commands.ts';
export { userDecider } from './user.decider.ts';

/** An account made outside the sign-up routes (first-run setup): the password rule, its hash, the user, a site role. */
export const accounts = { checkPassword, hashPassword, registerUser, grantSiteRole };

/** The caller's account and the password step-up of sensitive changes, for other slices' routes. */
export const caller = { currentUser, passwordStepUp };

const routes: FastifyPluginAsync<AppDeps> = async (app, deps) => {
  await app.register(authRoutes, deps);
  await app.register(accountRoutes, deps);
  await app.register(meRoutes, deps);
  await app.register(adminSessionsRoutes, deps);
  await app.register(scimRoutes, deps);
  await app.register(tfaRoutes, deps);
  await app.register(usersRoutes, deps);
  await app.register(inviteRoutes, deps);
  await app.register(impersonateRoutes, deps);
};

export const authFeature: Feature = {
  name: 'auth',
  projectors: [usersProjector, sessionsProjector],
  routes,
  authenticators: (deps) => [
    scimAuthenticator(deps.config.SCIM_TOKEN),
    internalAuthenticator(deps.db, deps.tokens, deps.store, deps.config.SVC_AUTH_CACHE_MS),
  ],
  retention: () => [
    {
      kind: 'sessions',
      defaultDays: 90,
      envKey: retentionEnvKey('sessions'),
      describe: 'Login sessions that ended (signed out, revoked or expired), instance-wide; live sessions are kept.',
      prune: (db, _siteId, before) => pruneEndedSessions(db, before),
    },
  ],
  personalData: (deps) => authPersonalData(deps),
};
