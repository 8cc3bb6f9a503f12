import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppDeps } from '../../../deps.ts';
import { siteOf } from '../../../kernel/http/access.ts';
import { commandContext } from '../../../kernel/http/command-meta.ts';
import { dataEnvelope, listEnvelope } from '../../../kernel/http/envelope.ts';
import { readAsSite } from '../../../kernel/tenancy/site.ts';
import { listErasures } from '../../../../projections/erasures/index.ts';
import { eraseSubject, erasureProof } from '../erasure.commands.ts';
import { eraseItemSubject } from '../erasure-items.commands.ts';
import { pathId } from '../../../kernel/http/path-params.ts';

const reason = z.string().trim().min(1).max(1000);
const EraseBody = z.union([
  z.object({ userId: z.string().min(1).max(200), reason }).strict(),
  z.object({ email: z.string().min(3).max(254), reason }).strict(),
  z
    .object({
      item: z.object({ collection: z.string().min(1).max(63), id: z.string().min(1).max(200) }).strict(),
      reason,
    })
    .strict(),
]);
const Proof = z
  .object({
    erasureId: z.string(),
    subjectId: z.string(),
    reason: z.string(),
    by: z.string(),
    startedAt: z.string(),
    completed: z.boolean(),
    status: z.enum(['completed', 'incomplete']),
    completedAt: z.string().nullable(),
    keyFingerprint: z.string().nullable(),
    revoked: z.object({ sessions: z.number().int(), apiKeys: z.number().int() }).nullable(),
    scrubbed: z
      .object({
        readModels: z.array(z.string()),
        mailOutbox: z.number().int(),
        sarExports: z.number().int().optional(),
      })
      .nullable(),
    shredded: z.array(z.string()),
  })
  .meta({ id: 'ErasureProof' });
const tags = ['privacy'];
const ListQuery = z
  .object({
    page: z.coerce.number().int().min(1).default(1),
    limit: z.coerce.number().int().min(1).max(200).default(25),
  })
  .strict();
const ListMeta = z.object({ total: z.number().int(), page: z.number().int(), pageSize: z.number().int() });

/** Erasure by crypto-shredding (admins): `POST` erases a person of the site, `GET` answers its proof. */
export const erasureRoutes: FastifyPluginAsync<AppDeps> = async (plain, deps) => {
  const app = plain.withTypeProvider<ZodTypeProvider>();

  app.post(
    '/api/v1/admin/erasure',
    {
      config: { caller: 'admin' },
      schema: {
        tags,
        summary:
          'Erase a person (or an item that is its own subject): destroy their key, revoke their access, scrub read ' +
          'models; answers the proof (200 when it completed an earlier erasure of the person that was cut short)',
        body: EraseBody,
        response: { 201: dataEnvelope(Proof, 'Created'), 200: dataEnvelope(Proof, 'An earlier erasure completed') },
      },
    },
    async (req, reply) => {
      const ctx = commandContext(req, deps.clock);
      const body = req.body;
      const done =
        'item' in body
          ? await eraseItemSubject(deps, ctx, { ...body.item, reason: body.reason })
          : await eraseSubject(deps, ctx, req.actor!, body);
      reply.status(done.resumed ? 200 : 201);
      return { data: await erasureProof(deps, done.siteId, done.erasureId) };
    },
  );

  app.get(
    '/api/v1/admin/erasure',
    {
      config: { caller: 'admin' },
      schema: {
        tags,
        summary: "The site's erasures, newest first, each with its status (incomplete: no proof yet)",
        querystring: ListQuery,
        response: { 200: listEnvelope(Proof, ListMeta) },
      },
    },
    async (req) => {
      const siteId = siteOf(req);
      const { page, limit } = req.query;
      const { rows, total } = await readAsSite(deps.db, siteId, (db) =>
        listErasures(db, siteId, { limit, offset: (page - 1) * limit }),
      );
      const data = await Promise.all(rows.map((r) => erasureProof(deps, siteId, r.erasureId)));
      return { data, meta: { total, page, pageSize: limit } };
    },
  );

  app.get(
    '/api/v1/admin/erasure/:id',
    {
      config: { caller: 'admin' },
      schema: {
        tags,
        summary: 'The proof of an erasure',
        params: z.object({ id: pathId(64) }),
        response: { 200: dataEnvelope(Proof) },
      },
    },
    async (req) => ({ data: await erasureProof(deps, siteOf(req), req.params.id) }),
  );
};
