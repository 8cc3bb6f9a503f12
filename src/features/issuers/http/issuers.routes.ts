import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppDeps } from '../../../deps.ts';
import { siteOf } from '../../../kernel/http/access.ts';
import { commandContext } from '../../../kernel/http/command-meta.ts';
import { readAsSite } from '../../../kernel/tenancy/site.ts';
import { listIssuers } from '../../../../projections/trusted-issuers/index.ts';
import { currentIssuer, registerIssuer, removeIssuer, updateIssuer } from '../issuer.commands.ts';
import { IssuersForInstanceAdmins } from '../issuer.errors.ts';
import { IssuerBody, IssuerPatchBody } from '../../../contracts/issuers/issuer.schema.ts';
import { dataEnvelope, listEnvelope, NoContent } from '../../../kernel/http/envelope.ts';
import { rejectInvalid } from '../../../kernel/http/unprocessable.ts';
import { IssuerListMeta, TrustedIssuerRecord } from './issuers.schemas.ts';
import { pathId } from '../../../kernel/http/path-params.ts';

const Id = z.object({ id: pathId(64) });
const BASE = '/api/v1/admin/auth/issuers';
const ADMIN = { caller: 'admin' as const };
const TAGS = ['admin'];

/** Trusted external issuers of the request's site: instance admins only. */
export const issuersRoutes: FastifyPluginAsync<AppDeps> = async (plain, deps) => {
  const app = plain.withTypeProvider<ZodTypeProvider>();
  // A site's own `admin` role passes site-scoped admin areas; whom the whole service trusts is the instance's call.
  app.addHook('preHandler', async (req) => {
    if (req.routeOptions.url?.startsWith(BASE) && !req.actor?.instanceAdmin) throw new IssuersForInstanceAdmins();
  });
  app.get(
    BASE,
    {
      config: ADMIN,
      schema: {
        tags: TAGS,
        summary: 'List trusted issuers',
        response: { 200: listEnvelope(TrustedIssuerRecord, IssuerListMeta) },
      },
    },
    async (req) => {
      const siteId = siteOf(req);
      const issuers = await readAsSite(deps.db, siteId, (trx) => listIssuers(trx, siteId));
      return { data: issuers, meta: { total: issuers.length } };
    },
  );

  app.get(
    `${BASE}/:id`,
    {
      config: ADMIN,
      attachValidation: true,
      schema: {
        params: Id,
        tags: TAGS,
        summary: 'Read a trusted issuer',
        response: { 200: dataEnvelope(TrustedIssuerRecord) },
      },
    },
    async (req) => {
      rejectInvalid(req);
      return { data: await currentIssuer(deps, siteOf(req), req.params.id) };
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
        response: { 201: dataEnvelope(TrustedIssuerRecord, 'Created') },
      },
    },
    async (req, reply) => {
      rejectInvalid(req);
      const ctx = commandContext(req, deps.clock);
      const issuerId = await registerIssuer(deps, ctx, req.body);
      reply.status(201);
      return { data: await currentIssuer(deps, ctx.siteId, issuerId) };
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
        response: { 200: dataEnvelope(TrustedIssuerRecord) },
      },
    },
    async (req) => {
      rejectInvalid(req);
      const ctx = commandContext(req, deps.clock);
      await updateIssuer(deps, ctx, { issuerId: req.params.id, patch: req.body });
      return { data: await currentIssuer(deps, ctx.siteId, req.params.id) };
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
      await removeIssuer(deps, commandContext(req, deps.clock), { issuerId: req.params.id });
      return reply.status(204).send();
    },
  );
};
