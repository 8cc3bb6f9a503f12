import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppDeps } from '../../../deps.ts';
import { roleOn } from '../../../kernel/auth/actor.ts';
import { commandContext } from '../../../kernel/http/command-meta.ts';
import { dataEnvelope, listEnvelope, metaEnvelope, TotalMeta, wholeList } from '../../../kernel/http/envelope.ts';
import { siteFromRequest, SYSTEM_SITE } from '../../../kernel/tenancy/site.ts';
import { findSite } from '../../../../projections/sites/index.ts';
import { findUserById, type UserRow } from '../../../../projections/users/index.ts';
import { liveSessions } from '../../../../projections/sessions/index.ts';
import { changePassword } from '../password.commands.ts';
import { revokeAllSessions, revokeOwnSession } from '../session.commands.ts';
import { changePreferences } from '../user.commands.ts';
import { Preferences, PreferencesMeta, Session, SessionRecord } from './auth.schemas.ts';
import { currentUser, passwordStepUp } from './caller.ts';
import { clientOf, withRefreshCookie } from './session-http.ts';
import { pathId } from '../../../kernel/http/path-params.ts';

const ChangePasswordBody = z.object({
  currentPassword: z.string().min(1).max(1024),
  newPassword: z.string().min(1).max(1024),
});
const SessionParams = z.object({ id: pathId(64) });

/** Preferences: a small validated blob; unknown keys are allowed (clients keep their own), within a size. */
const PreferencesPatch = z
  .object({
    saveAction: z.enum(['stay', 'return', 'create_new']).nullable().optional(),
    language: z.string().min(2).max(35).nullable().optional(),
    theme: z.enum(['light', 'dark', 'auto']).nullable().optional(),
  })
  .catchall(z.unknown())
  .refine((v) => JSON.stringify(v).length <= 16_384, 'preferences are limited to 16 KiB');

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
  const { db, clock } = deps;

  app.post(
    '/api/v1/me/change-password',
    {
      config: { site: false, secretAnswer: true },
      schema: {
        body: ChangePasswordBody,
        tags: ['me'],
        summary: 'Change the password (ends every session; answers a new one)',
        response: { 200: dataEnvelope(Session) },
      },
    },
    async (req, reply) => {
      const user = await currentUser(deps, req);
      await passwordStepUp(deps, reply, user, req.body.currentPassword, ['currentPassword']);
      const ctx = commandContext(req, clock, SYSTEM_SITE);
      const login = await changePassword(deps, ctx, { user, newPassword: req.body.newPassword, client: clientOf(req) });
      return { data: withRefreshCookie(deps, reply, login) };
    },
  );

  app.get(
    '/api/v1/me/sessions',
    {
      config: { site: false },
      schema: {
        tags: ['me'],
        summary: "List the caller's live sessions",
        response: { 200: listEnvelope(SessionRecord.extend({ current: z.boolean() }), TotalMeta) },
      },
    },
    async (req) => {
      const user = await currentUser(deps, req);
      const sessions = await liveSessions(db, user.userId, clock.now());
      return wholeList(sessions.map((s) => ({ ...s, current: s.id === req.actor!.sessionId })));
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
      const ctx = commandContext(req, clock, SYSTEM_SITE);
      await revokeOwnSession(deps, ctx, { userId: user.userId, sessionId: req.params.id });
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
      const ctx = commandContext(req, clock, SYSTEM_SITE);
      const n = await revokeAllSessions(deps, ctx, { userId: user.userId, reason: 'user', by: user.userId });
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
      await changePreferences(deps, commandContext(req, clock, SYSTEM_SITE), { userId: user.userId, patch: req.body });
      const fresh = (await findUserById(db, user.userId))!;
      return { data: fresh.preferences, meta: await effectivePreferences(deps, req, fresh) };
    },
  );
};
