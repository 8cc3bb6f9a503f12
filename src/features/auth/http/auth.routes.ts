import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppDeps } from '../../../deps.ts';
import { DomainError } from '../../../kernel/http/errors.ts';
import { enforceRate } from '../../../kernel/rate-limit/enforce.ts';
import { findUserByEmail, findUserById, toProfile } from '../../../../projections/users/index.ts';
import { authRules } from '../auth-limits.ts';
import { completeLogin } from '../login-flow.ts';
import { verifyPassword } from '../passwords.ts';
import { dataEnvelope } from '../../../kernel/http/envelope.ts';
import { LoginResult, Me, Session } from './auth.schemas.ts';
import { clearRefreshCookie, presentedRefresh, refreshSession, revokeSession, userMeta } from '../sessions.ts';
import {
  EmailNotVerified,
  InvalidCredentials,
  NoProfile,
  NoRefreshToken,
  NoSessionToEnd,
  UnreadableRefreshToken,
  UserGone,
} from '../auth.errors.ts';

const LoginBody = z.object({ email: z.string().min(1).max(320), password: z.string().min(1).max(1024) });
const RefreshBody = z.object({ refreshToken: z.string().max(200).optional() }).nullish();

export const authRoutes: FastifyPluginAsync<AppDeps> = async (plain, deps) => {
  const app = plain.withTypeProvider<ZodTypeProvider>();
  const { db, limiter, tokens } = deps;
  const rules = authRules(deps.config);

  app.post(
    '/api/v1/auth/login',
    {
      config: { caller: 'public', site: false },
      schema: {
        body: LoginBody,
        tags: ['auth'],
        summary: 'Log in with email and password',
        response: { 200: dataEnvelope(LoginResult, 'A session, or the second-factor challenge') },
      },
    },
    async (req, reply) => {
      // Attempts per IP, and per address whether it exists or not (so a lockout reveals nothing either).
      const account = `auth:login:acct:${deps.addresses.hash(req.body.email)}`;
      await enforceRate(limiter, reply, [
        { key: `auth:login:ip:${req.ip}`, rule: rules.loginIp },
        { key: account, rule: rules.loginFailures },
      ]);
      const user = await findUserByEmail(db, req.body.email);
      const ok = await verifyPassword(user?.passwordHash ?? null, req.body.password);
      // One answer for unknown user and wrong password.
      if (!user || !ok) throw new InvalidCredentials();
      await limiter.reset(account);
      if (user.status !== 'active') throw new EmailNotVerified();
      return { data: await completeLogin(deps, req, reply, user, ['pwd']) };
    },
  );

  app.post(
    '/api/v1/auth/refresh',
    {
      config: { caller: 'public', site: false },
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
      return { data: await refreshSession(deps, req, reply, token) };
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
      const token = presentedRefresh(req, req.body?.refreshToken);
      const parsed = token ? tokens.parseRefresh(token) : null;
      if (token && !parsed) throw new UnreadableRefreshToken();
      // Without a refresh token, the bearer's own session ends.
      const sessionId = parsed?.sessionId ?? req.actor?.sessionId ?? null;
      if (!sessionId) throw new NoSessionToEnd();
      try {
        await revokeSession(deps, userMeta(req, deps, req.actor?.id ?? 'anonymous'), sessionId, 'logout', null);
      } catch (err) {
        if (!(err instanceof DomainError && err.code === 'NOT_FOUND')) throw err;
      }
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
        retiring: { since: '2026-11-01', sunset: '2027-06-30', changelog: '/CHANGELOG.md#api-v1-auth-profile' },
      },
      schema: {
        tags: ['auth'],
        summary: 'Read the caller profile (retiring: use /auth/me)',
        deprecated: true,
        response: { 200: dataEnvelope(Me) },
      },
    },
    me,
  );
};
