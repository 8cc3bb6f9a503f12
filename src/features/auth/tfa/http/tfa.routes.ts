import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppDeps } from '../../../../deps.ts';
import { sealValue } from '../../../../kernel/crypto/envelope.ts';
import { handleCommand } from '../../../../kernel/es/handle-command.ts';
import { enforceRate } from '../../../../kernel/rate-limit/enforce.ts';
import { findUserById } from '../../../../../projections/users/index.ts';
import { authRules } from '../../auth-limits.ts';
import { currentUser, passwordStepUp } from '../../http/me.routes.ts';
import { revokeAllSessions, startSession, userMeta } from '../../sessions.ts';
import { userDecider } from '../../user.decider.ts';
import { userStream } from '../../user.events.ts';
import { openSeed, proofFrom, seedAad, sendTfa, tfaState } from '../tfa.service.ts';
import { dataEnvelope } from '../../../../kernel/http/envelope.ts';
import { Session } from '../../http/auth.schemas.ts';
import { codeStep, hashRecoveryCode, newRecoveryCodes, newSeed, otpauthUrl } from '../totp.ts';
import {
  CodeMismatch,
  EncryptionNotConfigured,
  InvalidChallenge,
  LiveCodeRequired,
  SetupNotStarted,
  TfaNotOn,
} from '../tfa.errors.ts';

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
  const now = () => clock.now().toISOString();
  const recoveryCodes = () => {
    const codes = newRecoveryCodes();
    return { codes, hashes: codes.map(hashRecoveryCode) };
  };

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
      await passwordStepUp(deps, req, reply, user, req.body.password);
      const secret = newSeed();
      const seed = sealValue(config.keyring, secret, seedAad(user.userId));
      await sendTfa(deps, req, user.userId, { type: 'IssueSetup', data: { userId: user.userId, seed, now: now() } });
      return { data: { secret, otpauthUrl: otpauthUrl(secret, user.email ?? user.userId) } };
    },
  );

  app.post(
    '/api/v1/me/tfa/confirm',
    {
      ...me,
      schema: {
        ...me.schema,
        summary: 'Confirm TOTP enrollment with a live code; answers the recovery codes',
        body: ConfirmBody,
        response: { 200: dataEnvelope(z.object({ enabled: z.boolean(), recoveryCodes: z.array(z.string()) })) },
      },
    },
    async (req) => {
      const user = await currentUser(deps, req);
      const s = await tfaState(deps, user.userId);
      if (s.status !== 'pending') throw new SetupNotStarted();
      const step = codeStep(openSeed(deps, s, user.userId), req.body.code, clock.now().getTime());
      if (step === null) throw new CodeMismatch();
      const { codes, hashes } = recoveryCodes();
      await sendTfa(deps, req, user.userId, {
        type: 'ConfirmSetup',
        data: { userId: user.userId, step, recoveryCodes: hashes, now: now() },
      });
      return { data: { enabled: true, recoveryCodes: codes } };
    },
  );

  app.post(
    '/api/v1/me/tfa/recovery-codes',
    {
      ...me,
      schema: {
        ...me.schema,
        summary: 'Regenerate the recovery codes',
        body: RegenerateBody,
        response: { 200: dataEnvelope(z.object({ recoveryCodes: z.array(z.string()) })) },
      },
    },
    async (req, reply) => {
      const user = await currentUser(deps, req);
      await passwordStepUp(deps, req, reply, user, req.body.password);
      const s = await tfaState(deps, user.userId);
      if (s.status !== 'enrolled') throw new TfaNotOn();
      const proof = proofFrom(deps, s, user.userId, { code: req.body.code });
      if (proof.kind !== 'code') throw new LiveCodeRequired();
      const { codes, hashes } = recoveryCodes();
      await sendTfa(deps, req, user.userId, {
        type: 'RegenerateRecoveryCodes',
        data: { userId: user.userId, step: proof.step, recoveryCodes: hashes, now: now() },
      });
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
      await passwordStepUp(deps, req, reply, user, req.body.password);
      const s = await tfaState(deps, user.userId);
      if (s.status !== 'enrolled') throw new TfaNotOn();
      const proof = proofFrom(deps, s, user.userId, req.body);
      await sendTfa(deps, req, user.userId, { type: 'DisableTotp', data: { userId: user.userId, proof, now: now() } });
      // Every token issued before is void, and every session ends.
      const meta = userMeta(req, deps, user.userId);
      await handleCommand(
        deps.store,
        userDecider,
        userStream(user.userId),
        { type: 'RevokeTokens', data: { userId: user.userId, reason: 'tfa', now: now() } },
        { metadata: meta },
      );
      await revokeAllSessions(deps, meta, user.userId, 'tfa', user.userId);
      return { data: { enabled: false } };
    },
  );

  app.post(
    '/api/v1/auth/verify-totp',
    {
      config: { caller: 'public', site: false },
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
      const user = claims ? await findUserById(deps.db, claims.sub) : null;
      if (!claims || !user || user.status !== 'active') throw new InvalidChallenge();
      const s = await tfaState(deps, user.userId);
      const proof = proofFrom(deps, s, user.userId, req.body);
      const expiresAt = new Date(Number(claims.exp ?? 0) * 1000).toISOString();
      await sendTfa(deps, req, user.userId, {
        type: 'ProveSecondFactor',
        data: { userId: user.userId, proof, challenge: { jti: claims.jti, expiresAt }, now: now() },
      });
      return { data: await startSession(deps, req, reply, user, ['pwd', 'totp']) };
    },
  );
};
