import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppDeps } from '../../../../deps.ts';
import { commandContext } from '../../../../kernel/http/command-meta.ts';
import { dataEnvelope } from '../../../../kernel/http/envelope.ts';
import { enforceRate } from '../../../../platform/rate-limit/enforce.ts';
import { SYSTEM_SITE } from '../../../../kernel/tenancy/site.ts';
import { authRules } from '../../auth-limits.ts';
import { Session } from '../../http/auth.schemas.ts';
import { currentUser, passwordStepUp } from '../../http/caller.ts';
import { clientOf, withRefreshCookie } from '../../http/session-http.ts';
import { answerChallenge, beginTfaSetup, confirmTfa, disableTfa, regenerateRecoveryCodes } from '../tfa.commands.ts';
import { EncryptionNotConfigured } from '../tfa.errors.ts';
import { tfaState } from '../tfa.service.ts';

const Code = z.string().min(1).max(16);
const Password = z.string().min(1).max(1024);
const SetupBody = z.object({ password: Password }).strict();
const ConfirmBody = z.object({ code: Code }).strict();
const RegenerateBody = z.object({ password: Password, code: Code }).strict();
const DisableBody = z.object({ password: Password, code: Code.optional(), recoveryCode: Code.optional() }).strict();
const VerifyBody = z
  .object({ challengeToken: z.string().min(1).max(4096), code: Code.optional(), recoveryCode: Code.optional() })
  .strict();

const me = { config: { site: false }, schema: { tags: ['me'] } };

/** TOTP enrollment (`/me/tfa`) and the second step of a login (`/auth/verify-totp`). */
export const tfaRoutes: FastifyPluginAsync<AppDeps> = async (plain, deps) => {
  const app = plain.withTypeProvider<ZodTypeProvider>();
  const { clock, config, tokens, limiter } = deps;

  app.get(
    '/api/v1/me/tfa',
    {
      ...me,
      schema: {
        ...me.schema,
        summary: 'Read the two-factor status',
        response: {
          200: dataEnvelope(
            z.object({
              enabled: z.boolean(),
              enrolledAt: z.string().nullable(),
              recoveryCodesRemaining: z.number().int(),
            }),
          ),
        },
      },
    },
    async (req) => {
      const user = await currentUser(deps, req);
      const s = await tfaState(deps, user.userId);
      return {
        data: {
          enabled: s.status === 'enrolled',
          enrolledAt: s.enrolledAt,
          recoveryCodesRemaining: s.recoveryCodes.filter(Boolean).length,
        },
      };
    },
  );

  app.post(
    '/api/v1/me/tfa/setup',
    {
      ...me,
      config: { ...me.config, secretAnswer: true },
      schema: {
        ...me.schema,
        summary: 'Start TOTP enrollment (password step-up; the secret is shown once)',
        body: SetupBody,
        response: { 200: dataEnvelope(z.object({ secret: z.string(), otpauthUrl: z.string() })) },
      },
    },
    async (req, reply) => {
      const user = await currentUser(deps, req);
      if (!config.keyring.activeKeyId) throw new EncryptionNotConfigured();
      await passwordStepUp(deps, reply, user, req.body.password);
      return { data: await beginTfaSetup(deps, commandContext(req, clock, SYSTEM_SITE), { user }) };
    },
  );

  app.post(
    '/api/v1/me/tfa/confirm',
    {
      ...me,
      config: { ...me.config, secretAnswer: true },
      schema: {
        ...me.schema,
        summary: 'Confirm TOTP enrollment with a live code; answers the recovery codes',
        body: ConfirmBody,
        response: { 200: dataEnvelope(z.object({ enabled: z.boolean(), recoveryCodes: z.array(z.string()) })) },
      },
    },
    async (req) => {
      const user = await currentUser(deps, req);
      const ctx = commandContext(req, clock, SYSTEM_SITE);
      const codes = await confirmTfa(deps, ctx, { userId: user.userId, code: req.body.code });
      return { data: { enabled: true, recoveryCodes: codes } };
    },
  );

  app.post(
    '/api/v1/me/tfa/recovery-codes',
    {
      ...me,
      config: { ...me.config, secretAnswer: true },
      schema: {
        ...me.schema,
        summary: 'Regenerate the recovery codes',
        body: RegenerateBody,
        response: { 200: dataEnvelope(z.object({ recoveryCodes: z.array(z.string()) })) },
      },
    },
    async (req, reply) => {
      const user = await currentUser(deps, req);
      await passwordStepUp(deps, reply, user, req.body.password);
      const ctx = commandContext(req, clock, SYSTEM_SITE);
      const codes = await regenerateRecoveryCodes(deps, ctx, { userId: user.userId, code: req.body.code });
      return { data: { recoveryCodes: codes } };
    },
  );

  app.delete(
    '/api/v1/me/tfa',
    {
      ...me,
      schema: {
        ...me.schema,
        summary: 'Turn two-factor authentication off',
        body: DisableBody,
        response: { 200: dataEnvelope(z.object({ enabled: z.boolean() })) },
      },
    },
    async (req, reply) => {
      const user = await currentUser(deps, req);
      await passwordStepUp(deps, reply, user, req.body.password);
      await disableTfa(deps, commandContext(req, clock, SYSTEM_SITE), { ...req.body, userId: user.userId });
      return { data: { enabled: false } };
    },
  );

  app.post(
    '/api/v1/auth/verify-totp',
    {
      config: { caller: 'public', site: false, secretAnswer: true },
      schema: {
        tags: ['auth'],
        summary: 'Answer the second-factor challenge with a code or a recovery code',
        body: VerifyBody,
        response: { 200: dataEnvelope(Session) },
      },
    },
    async (req, reply) => {
      const claims = await tokens.verifyPurpose('mfa-challenge', req.body.challengeToken);
      const rules = authRules(config);
      await enforceRate(limiter, reply, [
        { key: `auth:totp:ip:${req.ip}`, rule: rules.totpIp },
        ...(claims ? [{ key: `auth:totp:user:${claims.sub}`, rule: rules.totpUser }] : []),
      ]);
      const ctx = commandContext(req, clock, SYSTEM_SITE);
      const login = await answerChallenge(deps, ctx, { ...req.body, claims, client: clientOf(req) });
      return { data: withRefreshCookie(deps, reply, login) };
    },
  );
};
