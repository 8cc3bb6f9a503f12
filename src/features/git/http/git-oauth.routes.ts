import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppDeps } from '../../../deps.ts';
import { commandContext } from '../../../kernel/http/command-meta.ts';
import { dataEnvelope } from '../../../kernel/http/envelope.ts';
import { enforceRate } from '../../../platform/rate-limit/enforce.ts';
import { authorizationUrl, completeAuthorization, OAUTH_COOKIE, STATE_TTL_S } from '../git.oauth.ts';
import { GitOAuthStateInvalid } from '../git.errors.ts';
import { IntegrationParams } from './git.schemas.ts';

const BASE = '/api/v1/integrations/git';
const tags = ['git'];
/** Callbacks from one address per minute: a person connects a repository now and then. */
const PER_IP = { max: 60, windowS: 60 };

const CallbackQuery = z.object({
  state: z.string().min(1).max(4096).optional(),
  code: z.string().min(1).max(1024).optional(),
  /** Set by the provider when the person declined. */
  error: z.string().max(200).optional(),
});

/**
 * Connecting a repository through the provider's OAuth app: a site admin asks for the authorization address, the
 * provider sends the person back to the public callback, which checks and consumes the state and stores the token
 * sealed.
 */
export const gitOAuthRoutes: FastifyPluginAsync<AppDeps> = async (plain, deps) => {
  const app = plain.withTypeProvider<ZodTypeProvider>();

  app.get(
    `${BASE}/:id/oauth/authorize`,
    {
      config: { caller: 'site-admin' },
      schema: {
        tags,
        summary:
          "The provider's authorization address, with a single-use state bound to the caller and (by an HttpOnly cookie) their browser (10 minutes)",
        params: IntegrationParams,
        response: { 200: dataEnvelope(z.object({ url: z.string(), expiresAt: z.string() })) },
      },
    },
    async (req, reply) => {
      const { url, expiresAt, verifier, cookie } = await authorizationUrl(deps, req, req.params.id);
      void reply.setCookie(OAUTH_COOKIE, verifier, {
        httpOnly: true,
        sameSite: 'lax',
        secure: cookie.secure,
        path: cookie.path,
        maxAge: STATE_TTL_S,
      });
      return { data: { url, expiresAt } };
    },
  );

  app.get(
    `${BASE}/oauth/callback`,
    {
      config: { caller: 'public', site: false },
      schema: {
        tags,
        summary: 'Where the provider sends the person back: exchanges the code and stores the token sealed',
        querystring: CallbackQuery,
        response: { 200: dataEnvelope(z.object({ integrationId: z.string(), hasToken: z.boolean() })) },
      },
    },
    async (req, reply) => {
      await enforceRate(deps.limiter, reply, [{ key: `git-oauth:${req.ip}`, rule: PER_IP }]);
      const { state, code } = req.query;
      if (!state || !code) throw new GitOAuthStateInvalid({ reason: 'invalid' });
      const verifier = req.cookies?.[OAUTH_COOKIE];
      void reply.clearCookie(OAUTH_COOKIE, { path: '/api/v1/integrations/git/oauth/callback' });
      const ctx = commandContext(req, deps.clock, '-');
      return { data: await completeAuthorization(deps, ctx, { state, code, verifier }) };
    },
  );
};
