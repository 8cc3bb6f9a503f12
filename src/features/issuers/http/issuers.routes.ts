import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppDeps } from '../../../deps.ts';
import type { DomainEvent } from '../../../kernel/es/event.ts';
import { handleCommands, type StreamCommand } from '../../../kernel/es/handle-command.ts';
import { siteOf } from '../../../kernel/http/access.ts';
import { commandMeta } from '../../../kernel/http/command-meta.ts';
import { DomainError, forbidden, notFound } from '../../../kernel/http/errors.ts';
import { checkUrl, OutboundError, resolvePublic } from '../../../kernel/net/outbound-http.ts';
import { newId } from '../../../kernel/ids.ts';
import { withSite } from '../../../kernel/tenancy/site.ts';
import { findIssuer, listIssuers } from '../../../../projections/trusted-issuers/index.ts';
import { issuerClaimDecider } from '../issuer-claim.decider.ts';
import { issuerDecider } from '../issuer.decider.ts';
import { issuerClaimStream, issuerStream } from '../issuer.events.ts';
import { IssuerBody, IssuerPatchBody } from '../issuer.schema.ts';
import { NoContent } from '../../../kernel/http/envelope.ts';
import { rejectInvalid } from '../../../kernel/http/unprocessable.ts';

const Id = z.object({ id: z.string().min(1).max(64) });
const BASE = '/api/v1/admin/auth/issuers';
const ADMIN = { caller: 'admin' as const };
const TAGS = ['admin'];

const cmd = <S, C, E extends DomainEvent>(c: StreamCommand<S, C, E>) => c as unknown as StreamCommand;

/** Trusted external issuers of the request's site: instance admins only. */
export const issuersRoutes: FastifyPluginAsync<AppDeps> = async (plain, { db, store, clock, config }) => {
  const app = plain.withTypeProvider<ZodTypeProvider>();
  // A site's own `admin` role passes site-scoped admin areas; whom the whole service trusts is the instance's call.
  app.addHook('preHandler', async (req) => {
    if (req.routeOptions.url?.startsWith(BASE) && !req.actor?.instanceAdmin)
      throw forbidden('trusted issuers are managed by instance administrators');
  });
  /** Where the service will fetch keys from must be https in production and, unless allowed, a public address. */
  const checkSources = async (body: { jwksUri?: string | null; discoveryUrl?: string | null }) => {
    for (const key of ['jwksUri', 'discoveryUrl'] as const) {
      const url = body[key];
      if (!url) continue;
      try {
        await resolvePublic(
          checkUrl(url, { httpsOnly: config.NODE_ENV === 'production' }),
          config.SVC_ALLOW_PRIVATE_ISSUERS,
        );
      } catch (err) {
        if (!(err instanceof OutboundError)) throw err;
        // A name that does not resolve now may later: every fetch checks again, so registration lets it pass.
        if (err.reason === 'unresolved') continue;
        throw new DomainError('VALIDATION_FAILED', `${key}: ${err.message}`, {
          status: 422,
          path: ['body', key],
          extensions: { reason: err.reason },
        });
      }
    }
  };
  const current = async (siteId: string, id: string) => {
    const found = await withSite(db, siteId, (trx) => findIssuer(trx, siteId, id));
    if (!found) throw notFound('trusted issuer', id);
    return found;
  };
  const claim = (siteId: string, issuerId: string, iss: string, now: string) =>
    cmd({
      decider: issuerClaimDecider,
      streamId: issuerClaimStream(siteId, iss),
      command: { type: 'ClaimIssuer', data: { issuerId, iss, now } },
    });
  const release = (siteId: string, issuerId: string, iss: string, now: string) =>
    cmd({
      decider: issuerClaimDecider,
      streamId: issuerClaimStream(siteId, iss),
      command: { type: 'ReleaseIssuer', data: { issuerId, now } },
    });

  app.get(BASE, { config: ADMIN, schema: { tags: TAGS, summary: 'List trusted issuers' } }, async (req) => {
    const siteId = siteOf(req);
    const issuers = await withSite(db, siteId, (trx) => listIssuers(trx, siteId));
    return { data: issuers, meta: { total: issuers.length } };
  });

  app.get(
    `${BASE}/:id`,
    {
      config: ADMIN,
      attachValidation: true,
      schema: { params: Id, tags: TAGS, summary: 'Read a trusted issuer' },
    },
    async (req) => {
      rejectInvalid(req);
      return { data: await current(siteOf(req), req.params.id) };
    },
  );

  app.post(
    BASE,
    {
      config: ADMIN,
      attachValidation: true,
      schema: {
        body: IssuerBody,
        tags: TAGS,
        summary: 'Register a trusted issuer',
      },
    },
    async (req, reply) => {
      rejectInvalid(req);
      await checkSources(req.body);
      const siteId = siteOf(req);
      const issuerId = newId();
      const now = clock.now();
      const register = cmd({
        decider: issuerDecider,
        streamId: issuerStream(siteId, issuerId),
        command: { type: 'RegisterIssuer', data: { issuerId, siteId, config: req.body, now: now.toISOString() } },
      });
      await handleCommands(store, [register, claim(siteId, issuerId, req.body.issuer, now.toISOString())], {
        metadata: commandMeta(req, siteId, now),
      });
      reply.status(201);
      return { data: await current(siteId, issuerId) };
    },
  );

  app.patch(
    `${BASE}/:id`,
    {
      config: ADMIN,
      attachValidation: true,
      schema: {
        params: Id,
        body: IssuerPatchBody,
        tags: TAGS,
        summary: 'Update a trusted issuer',
      },
    },
    async (req) => {
      rejectInvalid(req);
      await checkSources(req.body);
      const siteId = siteOf(req);
      const { id } = req.params;
      const before = await current(siteId, id);
      const now = clock.now().toISOString();
      const next = req.body.issuer ?? before.issuer;
      const update = cmd({
        decider: issuerDecider,
        streamId: issuerStream(siteId, id),
        command: {
          type: 'UpdateIssuer',
          data: { issuerId: id, siteId, patch: req.body, expectedIssuer: before.issuer, now },
        },
      });
      const moves =
        next === before.issuer ? [] : [release(siteId, id, before.issuer, now), claim(siteId, id, next, now)];
      await handleCommands(store, [update, ...moves], { metadata: commandMeta(req, siteId, clock.now()) });
      return { data: await current(siteId, id) };
    },
  );

  app.delete(
    `${BASE}/:id`,
    {
      config: ADMIN,
      attachValidation: true,
      schema: {
        params: Id,
        tags: TAGS,
        summary: 'Remove a trusted issuer',
        response: { 204: NoContent },
      },
    },
    async (req, reply) => {
      rejectInvalid(req);
      const siteId = siteOf(req);
      const { id } = req.params;
      const before = await current(siteId, id);
      const now = clock.now().toISOString();
      const remove = cmd({
        decider: issuerDecider,
        streamId: issuerStream(siteId, id),
        command: { type: 'RemoveIssuer', data: { issuerId: id, siteId, expectedIssuer: before.issuer, now } },
      });
      await handleCommands(store, [remove, release(siteId, id, before.issuer, now)], {
        metadata: commandMeta(req, siteId, clock.now()),
      });
      return reply.status(204).send();
    },
  );
};
