import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppDeps } from '../../../deps.ts';
import { roleOn, type Actor } from '../../../kernel/auth/actor.ts';
import { siteFromRequest } from '../../../kernel/tenancy/site.ts';
import { findSite } from '../../../../projections/sites/index.ts';
import { handleCommand } from '../../../kernel/es/handle-command.ts';
import { enforceRate } from '../../../kernel/rate-limit/enforce.ts';
import { findUserById, type UserRow } from '../../../../projections/users/index.ts';
import { liveSessions } from '../../../../projections/sessions/index.ts';
import { authRules } from '../auth-limits.ts';
import { checkPassword } from '../password-policy.ts';
import { verifyPassword } from '../passwords.ts';
import { setPassword } from '../identity.ts';
import { revokeAllSessions, revokeSession, startSession, userMeta } from '../sessions.ts';
import { userDecider } from '../user.decider.ts';
import { dataEnvelope, metaEnvelope } from '../../../kernel/http/envelope.ts';
import { Preferences, PreferencesMeta, Session, SessionRecord } from './auth.schemas.ts';
import { userStream } from '../user.events.ts';
import { AccountWhileImpersonating, NoAccount, SessionNotFound, UserGone, WrongPassword } from '../auth.errors.ts';

const ChangePasswordBody = z.object({
  currentPassword: z.string().min(1).max(1024),
  newPassword: z.string().min(1).max(1024),
});
const SessionParams = z.object({ id: z.string().min(1).max(64) });

/** Preferences: a small validated blob; unknown keys are allowed (clients keep their own), within a size. */
const PreferencesPatch = z
  .object({
    saveAction: z.enum(['stay', 'return', 'create_new']).nullable().optional(),
    language: z.string().min(2).max(35).nullable().optional(),
    theme: z.enum(['light', 'dark', 'auto']).nullable().optional(),
  })
  .catchall(z.unknown())
  .refine((v) => JSON.stringify(v).length <= 16_384, 'preferences are limited to 16 KiB');

/** The user behind a bearer: API keys and other principals have no account to manage. */
export async function currentUser(deps: AppDeps, req: FastifyRequest): Promise<UserRow> {
  const actor = req.actor as Actor;
  if (actor.type !== 'user') throw new NoAccount();
  if (actor.impersonator) throw new AccountWhileImpersonating();
  const user = await findUserById(deps.db, actor.id);
  if (!user) throw new UserGone();
  return user;
}

/**
 * Verifies the caller's password for a sensitive step (change-password, TOTP setup and removal), counted like
 * login failures so it cannot serve as an unlimited guessing oracle.
 */
export async function passwordStepUp(
  deps: AppDeps,
  req: FastifyRequest,
  reply: Parameters<typeof enforceRate>[1],
  user: UserRow,
  password: string,
  path = ['password'],
): Promise<void> {
  const key = `auth:stepup:${user.userId}`;
  await enforceRate(deps.limiter, reply, [{ key, rule: authRules(deps.config).loginFailures }]);
  if (!(await verifyPassword(user.passwordHash, password))) throw new WrongPassword({ path });
  await deps.limiter.reset(key);
}

/**
 * With a site named (X-Svc-Site) that the caller belongs to, the values in effect there: a null or unset
 * saveAction falls back to the site's default_save_action.
 */
async function effectivePreferences(deps: AppDeps, req: FastifyRequest, user: UserRow) {
  const siteId = siteFromRequest(req.headers, req.headers.host);
  if (!siteId || !roleOn(req.actor!, siteId)) return {};
  const site = await findSite(deps.db, siteId);
  if (!site) return {};
  const own = user.preferences.saveAction as string | null | undefined;
  return { site: siteId, effective: { saveAction: own ?? site.settings.default_save_action ?? null } };
}

export const meRoutes: FastifyPluginAsync<AppDeps> = async (plain, deps) => {
  const app = plain.withTypeProvider<ZodTypeProvider>();
  const { db, store, clock } = deps;

  app.post(
    '/api/v1/me/change-password',
    {
      config: { site: false },
      schema: {
        body: ChangePasswordBody,
        tags: ['me'],
        summary: 'Change the password (ends every session; answers a new one)',
        response: { 200: dataEnvelope(Session) },
      },
    },
    async (req, reply) => {
      const user = await currentUser(deps, req);
      await passwordStepUp(deps, req, reply, user, req.body.currentPassword, ['currentPassword']);
      checkPassword(req.body.newPassword, user.email ?? undefined, ['newPassword']);
      const meta = userMeta(req, deps, user.userId);
      await setPassword(deps, user.userId, req.body.newPassword, { reason: 'change' }, meta);
      await revokeAllSessions(deps, meta, user.userId, 'password', user.userId);
      // The caller's tokens died with the others: this request's answer is its new session.
      const fresh = (await findUserById(db, user.userId))!;
      return { data: await startSession(deps, req, reply, fresh, ['pwd']) };
    },
  );

  app.get(
    '/api/v1/me/sessions',
    {
      config: { site: false },
      schema: {
        tags: ['me'],
        summary: "List the caller's live sessions",
        response: { 200: dataEnvelope(z.array(SessionRecord.extend({ current: z.boolean() }))) },
      },
    },
    async (req) => {
      const user = await currentUser(deps, req);
      const sessions = await liveSessions(db, user.userId, clock.now());
      return { data: sessions.map((s) => ({ ...s, current: s.id === req.actor!.sessionId })) };
    },
  );

  app.delete(
    '/api/v1/me/sessions/:id',
    {
      config: { site: false },
      schema: {
        params: SessionParams,
        tags: ['me'],
        summary: 'Revoke one of the caller sessions',
        response: { 200: dataEnvelope(z.object({ id: z.string(), revoked: z.boolean() })) },
      },
    },
    async (req) => {
      const user = await currentUser(deps, req);
      const mine = (await liveSessions(db, user.userId, clock.now())).some((s) => s.id === req.params.id);
      if (!mine) throw new SessionNotFound({ sessionId: req.params.id });
      await revokeSession(deps, userMeta(req, deps, user.userId), req.params.id, 'user', user.userId);
      return { data: { id: req.params.id, revoked: true } };
    },
  );

  app.delete(
    '/api/v1/me/sessions',
    {
      config: { site: false },
      schema: {
        tags: ['me'],
        summary: 'Revoke every session of the caller',
        response: { 200: dataEnvelope(z.object({ revoked: z.number().int() })) },
      },
    },
    async (req) => {
      const user = await currentUser(deps, req);
      const n = await revokeAllSessions(deps, userMeta(req, deps, user.userId), user.userId, 'user', user.userId);
      return { data: { revoked: n } };
    },
  );

  app.get(
    '/api/v1/me/preferences',
    {
      config: { site: false },
      schema: {
        tags: ['me'],
        summary: 'Read the caller preferences',
        response: { 200: metaEnvelope(Preferences, PreferencesMeta) },
      },
    },
    async (req) => {
      const user = await currentUser(deps, req);
      return { data: user.preferences, meta: await effectivePreferences(deps, req, user) };
    },
  );

  app.patch(
    '/api/v1/me/preferences',
    {
      config: { site: false },
      schema: {
        body: PreferencesPatch,
        tags: ['me'],
        summary: 'Merge a patch into the caller preferences',
        response: { 200: metaEnvelope(Preferences, PreferencesMeta) },
      },
    },
    async (req) => {
      const user = await currentUser(deps, req);
      await handleCommand(
        store,
        userDecider,
        userStream(user.userId),
        {
          type: 'ChangePreferences',
          data: { userId: user.userId, patch: req.body, now: clock.now().toISOString() },
        },
        { metadata: userMeta(req, deps, user.userId) },
      );
      const fresh = (await findUserById(db, user.userId))!;
      return { data: fresh.preferences, meta: await effectivePreferences(deps, req, fresh) };
    },
  );
};
