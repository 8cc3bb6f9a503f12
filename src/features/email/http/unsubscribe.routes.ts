import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppDeps } from '../../../deps.ts';
import { commandContext } from '../../../kernel/http/command-meta.ts';
import { dataEnvelope } from '../../../kernel/http/envelope.ts';
import { normaliseAddress } from '../address.ts';
import { UnsubscribeTokenAmbiguous, UnsubscribeTokenMissing } from '../email.errors.ts';
import { suppressAddress } from '../suppression.commands.ts';
import { readUnsubscribeToken } from '../unsubscribe-token.ts';
import { UnsubscribedBody, UnsubscribeForm, UnsubscribeQuery } from './email.schemas.ts';
import { htmlErrors } from './html-errors.ts';
import { confirmPage, donePage, sendPage } from './unsubscribe-page.ts';

const UNSUBSCRIBE = '/api/v1/email/unsubscribe';
// Public and not site-scoped: the site comes from the signed token, never from X-Svc-Site or the host.
const PUBLIC = { caller: 'public' as const, site: false };
const tags = ['email'];
const FORM_LIMIT = 8192;

const html = (description: string) => ({ description, content: { 'text/html': { schema: z.string() } } });

/** Only the form fields RFC 8058 and the page use; no field name of the request becomes an object key. */
function formFields(text: string) {
  const p = new URLSearchParams(text);
  const field = (name: string) => p.get(name) ?? undefined;
  return { 'List-Unsubscribe': field('List-Unsubscribe'), token: field('token'), page: field('page') };
}

/** The token of a request: in the query (the List-Unsubscribe address) or the form body, never two different ones. */
function tokenOf(query: string | undefined, body: string | undefined): string {
  if (query && body && query !== body) throw new UnsubscribeTokenAmbiguous();
  const token = query || body;
  if (!token) throw new UnsubscribeTokenMissing();
  return token;
}

/**
 * One-click unsubscribe (RFC 8058): POST suppresses the token's address on the token's site; GET shows a page whose
 * one button sends that POST (mail scanners open GET links; see docs/decisions.md). No login, cookie or redirect.
 */
export const unsubscribeRoutes: FastifyPluginAsync<AppDeps> = async (plain, deps) => {
  // This plugin's routes only: RFC 8058 bodies are forms; a multipart body is read and ignored (the token is in the
  // query of the List-Unsubscribe address).
  plain.addContentTypeParser(
    'application/x-www-form-urlencoded',
    { parseAs: 'string', bodyLimit: FORM_LIMIT },
    (_req, body, done) => done(null, formFields(body as string)),
  );
  plain.addContentTypeParser('multipart/form-data', { parseAs: 'buffer', bodyLimit: FORM_LIMIT }, (_req, _b, done) =>
    done(null, undefined),
  );
  const app = plain.withTypeProvider<ZodTypeProvider>();

  app.get(
    UNSUBSCRIBE,
    {
      config: PUBLIC,
      errorHandler: htmlErrors,
      schema: {
        tags,
        summary: 'The unsubscribe page: a one-button form that sends the one-click POST (HTML, changes nothing)',
        querystring: UnsubscribeQuery,
        response: {
          200: html('The confirmation page'),
          400: html('The link is incomplete (HTML page; VALIDATION_FAILED)'),
          401: html('The link is not genuine, or its site is gone (HTML page; UNAUTHENTICATED)'),
        },
      },
    },
    async (req, reply) => {
      const token = tokenOf(req.query.token, undefined);
      const { email, siteName } = await readUnsubscribeToken(deps, token);
      return sendPage(reply, 200, confirmPage({ siteName, email: normaliseAddress(email), token }));
    },
  );

  app.post(
    UNSUBSCRIBE,
    {
      config: PUBLIC,
      schema: {
        tags,
        summary: 'One-click unsubscribe (RFC 8058): the token in the query or the form body; 200 whatever the state',
        consumes: ['application/x-www-form-urlencoded', 'multipart/form-data', 'application/json'],
        querystring: UnsubscribeQuery,
        body: UnsubscribeForm,
        response: {
          200: {
            description: 'Unsubscribed (an HTML page when the request came from the unsubscribe page)',
            content: {
              'application/json': { schema: dataEnvelope(UnsubscribedBody) },
              'text/html': { schema: z.string() },
            },
          },
        },
      },
    },
    async (req, reply) => {
      const token = tokenOf(req.query.token, req.body?.token);
      const { siteId, email, siteName } = await readUnsubscribeToken(deps, token);
      const ctx = commandContext(req, deps.clock, siteId);
      await suppressAddress(deps, ctx, { email, reason: null, source: 'unsubscribe' });
      if (req.body?.page === '1') return sendPage(reply, 200, donePage(siteName));
      return { data: { unsubscribed: true as const } };
    },
  );
};
