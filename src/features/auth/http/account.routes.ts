import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppDeps } from '../../../deps.ts';
import { handleCommand, handleCommands } from '../../../kernel/es/handle-command.ts';
import { commandMeta } from '../../../kernel/http/command-meta.ts';
import { siteOf } from '../../../kernel/http/access.ts';
import { DomainError } from '../../../kernel/http/errors.ts';
import { newId } from '../../../kernel/ids.ts';
import { SYSTEM_SITE } from '../../../kernel/tenancy/site.ts';
import { findSite } from '../../../../projections/sites/index.ts';
import { findUserByEmail, findUserById } from '../../../../projections/users/index.ts';
import { mailAccountExists, mailNothingToSend, mailPasswordReset, mailVerification } from '../account-mails.ts';
import { authRules, limitByIp } from '../auth-limits.ts';
import { checkPassword } from '../password-policy.ts';
import { consumePasswordLink, newIdentityCommands } from '../identity.ts';
import { hashPassword } from '../passwords.ts';
import { revokeAllSessions, userMeta } from '../sessions.ts';
import { userDecider } from '../user.decider.ts';
import { dataEnvelope } from '../../../kernel/http/envelope.ts';
import { Accepted } from './auth.schemas.ts';
import { userStream } from '../user.events.ts';
import { InvalidLink, SignUpClosed } from '../auth.errors.ts';

const Email = z.string().trim().toLowerCase().email().max(320);
const RegisterBody = z.object({
  email: Email,
  password: z.string().min(1).max(1024),
  firstName: z.string().max(200).optional(),
  lastName: z.string().max(200).optional(),
});
const EmailBody = z.object({ email: Email });
const TokenBody = z.object({ token: z.string().min(1).max(4096) });
const ResetBody = z.object({ token: z.string().min(1).max(4096), password: z.string().min(1).max(1024) });

const ACCEPTED = {
  data: { accepted: true, message: 'If the address can be used, an email is on its way.' },
};

/**
 * Self-service sign-up and recovery. Every answer that could reveal whether an address has an account is the
 * same generic 202; the difference goes by email to the address's owner.
 */
export const accountRoutes: FastifyPluginAsync<AppDeps> = async (plain, deps) => {
  const app = plain.withTypeProvider<ZodTypeProvider>();
  const { db, store, clock, limiter, tokens } = deps;
  const rules = authRules(deps.config);

  app.post(
    '/api/v1/auth/register',
    {
      config: { caller: 'public' },
      schema: {
        body: RegisterBody,
        tags: ['auth'],
        summary: 'Sign up as a subscriber of the site',
        response: { 202: dataEnvelope(Accepted, 'Accepted (the same answer whether or not the address is known)') },
      },
    },
    async (req, reply) => {
      const siteId = siteOf(req);
      await limitByIp(limiter, req, reply, 'register', rules.register);
      const site = await findSite(db, siteId);
      if (site?.settings.public_registration !== true) throw new SignUpClosed({ siteId });
      const { email, password } = req.body;
      checkPassword(password, email);
      // Both paths spend the same work: one password hash, one append to the log, one signed link, one mail.
      const userId = newId();
      const passwordHash = await hashPassword(password);
      const existing = await findUserByEmail(db, email);
      const metadata = { ...commandMeta(req, SYSTEM_SITE, clock.now()), actor: { type: 'user' as const, id: userId } };
      if (existing) {
        await handleCommand(
          store,
          userDecider,
          userStream(existing.userId),
          { type: 'RecordSignUpAttempt', data: { userId: existing.userId, siteId, now: clock.now().toISOString() } },
          { metadata: commandMeta(req, SYSTEM_SITE, clock.now()) },
        );
        await mailAccountExists(deps, siteId, existing);
        return reply.status(202).send(ACCEPTED);
      }
      try {
        await handleCommands(
          store,
          await newIdentityCommands(
            deps,
            {
              userId,
              email,
              passwordHash,
              firstName: req.body.firstName,
              lastName: req.body.lastName,
              status: 'unverified',
            },
            { siteId, role: 'subscriber' },
          ),
          { metadata },
        );
      } catch (err) {
        // Lost a race for the address to a concurrent sign-up: the same generic answer.
        if (err instanceof DomainError && err.code === 'CONFLICT') return reply.status(202).send(ACCEPTED);
        throw err;
      }
      await mailVerification(deps, siteId, userId, email);
      return reply.status(202).send(ACCEPTED);
    },
  );

  app.post(
    '/api/v1/auth/verify-email',
    {
      config: { caller: 'public', site: false },
      schema: {
        body: TokenBody,
        tags: ['auth'],
        summary: 'Verify an email address from the emailed token',
        response: { 200: dataEnvelope(z.object({ verified: z.boolean() })) },
      },
    },
    async (req) => {
      const claims = await tokens.verifyPurpose('verify-email', req.body.token);
      const user = claims ? await findUserById(db, claims.sub) : null;
      if (!claims || !user) throw new InvalidLink();
      await handleCommand(
        store,
        userDecider,
        userStream(user.userId),
        { type: 'VerifyEmail', data: { userId: user.userId, now: clock.now().toISOString() } },
        { metadata: userMeta(req, deps, user.userId) },
      );
      return { data: { verified: true } };
    },
  );

  app.post(
    '/api/v1/auth/resend-verification',
    {
      config: { caller: 'public', site: false },
      schema: {
        body: EmailBody,
        tags: ['auth'],
        summary: 'Send the verification email again',
        response: { 202: dataEnvelope(Accepted, 'Accepted (the same answer whether or not the address is known)') },
      },
    },
    async (req, reply) => {
      await limitByIp(limiter, req, reply, 'resend', rules.resend);
      const user = await findUserByEmail(db, req.body.email);
      if (user?.status === 'unverified') {
        const siteId = Object.keys(user.roles)[0] ?? SYSTEM_SITE;
        await mailVerification(deps, siteId, user.userId, user.email!);
      } else await mailNothingToSend(deps, req.body.email, 'verify');
      return reply.status(202).send(ACCEPTED);
    },
  );

  app.post(
    '/api/v1/auth/forgot-password',
    {
      config: { caller: 'public', site: false },
      schema: {
        body: EmailBody,
        tags: ['auth'],
        summary: 'Email a password reset link',
        response: { 202: dataEnvelope(Accepted, 'Accepted (the same answer whether or not the address is known)') },
      },
    },
    async (req, reply) => {
      await limitByIp(limiter, req, reply, 'recovery', rules.recovery);
      const user = await findUserByEmail(db, req.body.email);
      if (user) {
        await handleCommand(
          store,
          userDecider,
          userStream(user.userId),
          { type: 'RequestPasswordReset', data: { userId: user.userId, now: clock.now().toISOString() } },
          { metadata: commandMeta(req, SYSTEM_SITE, clock.now()) },
        );
        await mailPasswordReset(deps, user);
      } else await mailNothingToSend(deps, req.body.email, 'reset');
      return reply.status(202).send(ACCEPTED);
    },
  );

  app.post(
    '/api/v1/auth/reset-password',
    {
      config: { caller: 'public', site: false },
      schema: {
        body: ResetBody,
        tags: ['auth'],
        summary: 'Set a new password with a reset token',
        response: { 200: dataEnvelope(z.object({ reset: z.boolean() })) },
      },
    },
    async (req, reply) => {
      await limitByIp(limiter, req, reply, 'reset', rules.reset);
      const metadataFor = (userId: string) => ({
        ...commandMeta(req, SYSTEM_SITE, clock.now()),
        actor: { type: 'user' as const, id: userId },
      });
      const user = await consumePasswordLink(deps, 'reset-password', req.body.token, req.body.password, metadataFor);
      await revokeAllSessions(deps, metadataFor(user.userId), user.userId, 'password', null);
      return { data: { reset: true } };
    },
  );
};
