import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { AppDeps } from '../../../deps.ts';
import { siteOf } from '../../../kernel/http/access.ts';
import { commandContext } from '../../../kernel/http/command-meta.ts';
import { dataEnvelope, listEnvelope, NoContent } from '../../../kernel/http/envelope.ts';
import { readAsSite } from '../../../kernel/tenancy/site.ts';
import { listSuppressions } from '../../../../projections/email-suppressions/index.ts';
import { openAddress, suppressAddress, unsuppressAddress } from '../suppression.commands.ts';
import {
  SuppressBody,
  SuppressionListMeta,
  SuppressionParams,
  SuppressionQuery,
  SuppressionRecordBody,
} from './email.schemas.ts';

const BASE = '/api/v1/email/suppressions';
// Spec "Authentication" rule 2: suppressions are an admin-only area (the site's `admin` role, instance admins).
const ADMIN = { caller: 'admin' as const };
const tags = ['email'];

/** The site's suppression list: read, add to, remove from. */
export const suppressionsRoutes: FastifyPluginAsync<AppDeps> = async (plain, deps) => {
  const app = plain.withTypeProvider<ZodTypeProvider>();

  app.get(
    BASE,
    {
      config: ADMIN,
      schema: {
        tags,
        summary: 'Suppressed addresses of the site, newest first',
        querystring: SuppressionQuery,
        response: { 200: listEnvelope(SuppressionRecordBody, SuppressionListMeta) },
      },
    },
    async (req) => {
      const siteId = siteOf(req);
      const { limit, offset } = req.query;
      const { rows, total } = await readAsSite(deps.db, siteId, (trx) =>
        listSuppressions(trx, siteId, { limit, offset }),
      );
      const data = await Promise.all(
        rows.map(async ({ emailSealed, ...r }) => ({
          ...r,
          email: await openAddress(deps.db, deps.config.keyring, siteId, r.emailHash, emailSealed),
        })),
      );
      return { data, meta: { total, limit, offset } };
    },
  );

  app.post(
    BASE,
    {
      config: ADMIN,
      schema: {
        tags,
        summary: 'Suppress an address (201; 200 when it already is, nothing recorded)',
        body: SuppressBody,
        response: {
          200: dataEnvelope(SuppressionRecordBody, 'Already suppressed'),
          201: dataEnvelope(SuppressionRecordBody, 'Created'),
        },
      },
    },
    async (req, reply) => {
      const ctx = commandContext(req, deps.clock);
      const input = { email: req.body.email, reason: req.body.reason ?? null, source: 'admin' as const };
      const { record, created } = await suppressAddress(deps, ctx, input);
      reply.status(created ? 201 : 200);
      return { data: record };
    },
  );

  app.delete(
    `${BASE}/:email`,
    {
      config: ADMIN,
      schema: {
        tags,
        summary: 'Remove an address from the list (404 when it is not on it)',
        params: SuppressionParams,
        response: { 204: NoContent },
      },
    },
    async (req, reply) => {
      await unsuppressAddress(deps, commandContext(req, deps.clock), { email: req.params.email });
      return reply.status(204).send();
    },
  );
};
