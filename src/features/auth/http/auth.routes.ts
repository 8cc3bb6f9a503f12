import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppDeps } from '../../../deps.ts';
import { commandContext } from '../../../kernel/http/command-meta.ts';
import { dataEnvelope } from '../../../kernel/http/envelope.ts';
import { enforceRate } from '../../../platform/rate-limit/enforce.ts';
import { SYSTEM_SITE } from '../../../kernel/tenancy/site.ts';
import { findUserById, toProfile } from '../../../../projections/users/index.ts';
import { asUserIfAnonymous } from '../acting-user.ts';
import { authRules, loginFailuresKey } from '../auth-limits.ts';
import { NoProfile, NoRefreshToken, UserGone } from '../auth.errors.ts';
import { logIn } from '../login.commands.ts';
import { endedBySessionRotation, logout, rotateSession } from '../session.commands.ts';
import { LoginResult, Me, Session } from './auth.schemas.ts';
import { clearRefreshCookie, clientOf, presentedRefresh, withRefreshCookie } from './session-http.ts';

const LoginBody = z.object({ email: z.string().min(1).max(320), password: z.string().min(1).max(1024) });
const RefreshBody = z.object({ refreshToken: z.string().max(200).optional() }).nullish();

export const authRoutes: FastifyPluginAsync<AppDeps> = async (plain, deps) => {
  const app = plain.withTypeProvider<ZodTypeProvider>();
  const { db, limiter } = deps;
  const rules = authRules(deps.config);

  app.post(
    '/api/v1/auth/login',
    {
      config: { caller: 'public', site: false, secretAnswer: true },
      schema: {
        body: LoginBody,
        tags: ['auth'],
        summary: 'Log in with email and password',
        response: { 200: dataEnvelope(LoginResult, 'A session, or the second-factor challenge') },
      },
    },
    async (req, reply) => {
      // Attempts per IP, and per address whether it exists or not (so a lockout reveals nothing either).
      await enforceRate(limiter, reply, [
        { key: `auth:login:ip:${req.ip}`, rule: rules.loginIp },
        { key: loginFailuresKey(deps.addresses, req.body.email), rule: rules.loginFailures },
      ]);
      const ctx = commandContext(req, deps.clock, SYSTEM_SITE);
      const login = await logIn(deps, ctx, { ...req.body, client: clientOf(req) });
      return { data: withRefreshCookie(deps, reply, login) };
    },
  );

  app.post(
    '/api/v1/auth/refresh',
    {
      config: { caller: 'public', site: false, secretAnswer: true },
      schema: {
        body: RefreshBody,
        tags: ['auth'],
        summary: 'Rotate the refresh token for a fresh access token',
        response: { 200: dataEnvelope(Session) },
      },
    },
    async (req, reply) => {
      const token = presentedRefresh(req, req.body?.refreshToken);
      if (!token) throw new NoRefreshToken();
      try {
        const login = await rotateSession(deps, commandContext(req, deps.clock, SYSTEM_SITE), token);
        return { data: withRefreshCookie(deps, reply, login) };
      } catch (err) {
        if (endedBySessionRotation(err)) clearRefreshCookie(deps, reply);
        throw err;
      }
    },
  );

  app.post(
    '/api/v1/auth/logout',
    {
      config: { caller: 'public', site: false },
      schema: {
        body: RefreshBody,
        tags: ['auth'],
        summary: 'End a session',
        response: { 200: dataEnvelope(z.object({ loggedOut: z.boolean() })) },
      },
    },
    async (req, reply) => {
      const refreshToken = presentedRefresh(req, req.body?.refreshToken);
      const ctx = asUserIfAnonymous(commandContext(req, deps.clock, SYSTEM_SITE), 'anonymous');
      // Without a refresh token, the bearer's own session ends.
      await logout(deps, ctx, { refreshToken, bearerSessionId: req.actor?.sessionId ?? null });
      clearRefreshCookie(deps, reply);
      return { data: { loggedOut: true } };
    },
  );

  const me = async (req: FastifyRequest) => {
    const actor = req.actor!;
    if (actor.type !== 'user') throw new NoProfile();
    const user = await findUserById(db, actor.id);
    if (!user) throw new UserGone();
    return { data: { ...toProfile(user), instanceAdmin: user.instanceAdmin, sites: user.roles, amr: actor.amr ?? [] } };
  };
  app.get(
    '/api/v1/auth/me',
    {
      config: { site: false },
      schema: { tags: ['auth'], summary: 'Read the caller profile', response: { 200: dataEnvelope(Me) } },
    },
    me,
  );
  // The profile's former address, kept for older clients until its sunset.
  app.get(
    '/api/v1/auth/profile',
    {
      config: {
        site: false,
        retiring: { since: '2026-11-01', sunset: '2027-06-30' },
      },
      schema: {
        tags: ['auth'],
        summary: 'Read the caller profile (retiring: use /auth/me)',
        // The changelog entry the Link header of its answers points at (CHANGELOG.md says the same).
        description:
          'Deprecated since 2026-11-01; goes away on 2027-06-30. Use GET /api/v1/auth/me, which answers the same record.',
        deprecated: true,
        response: { 200: dataEnvelope(Me) },
      },
    },
    me,
  );
};
