import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppDeps } from '../../../deps.ts';
import { siteOf } from '../../../kernel/http/access.ts';
import { installAfterAnswer } from '../../../kernel/http/after-answer.ts';
import { commandContext } from '../../../kernel/http/command-meta.ts';
import { dataEnvelope } from '../../../kernel/http/envelope.ts';
import { SYSTEM_SITE } from '../../../kernel/tenancy/site.ts';
import { confirmEmail, resendVerification, signUp } from '../account.commands.ts';
import { authRules, limitByIp } from '../auth-limits.ts';
import { forgotPassword, resetPassword } from '../password.commands.ts';
import { Accepted } from './auth.schemas.ts';

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
 * same generic 202, sent before any work that depends on the address (`later`), so neither its body nor its time
 * tells; the difference goes by email to the address's owner.
 */
export const accountRoutes: FastifyPluginAsync<AppDeps> = async (plain, deps) => {
  const app = plain.withTypeProvider<ZodTypeProvider>();
  const { clock, limiter } = deps;
  const rules = authRules(deps.config);
  const later = installAfterAnswer(plain, deps.afterAnswer);

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
      later(req, 'sign-up', await signUp(deps, commandContext(req, clock, SYSTEM_SITE), { ...req.body, siteId }));
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
      await confirmEmail(deps, commandContext(req, clock, SYSTEM_SITE), req.body);
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
      later(req, 'resend-verification', () => resendVerification(deps, req.body));
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
      const ctx = commandContext(req, clock, SYSTEM_SITE);
      later(req, 'forgot-password', () => forgotPassword(deps, ctx, req.body));
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
      await resetPassword(deps, commandContext(req, clock, SYSTEM_SITE), req.body);
      return { data: { reset: true } };
    },
  );
};
