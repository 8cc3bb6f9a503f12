import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppDeps } from '../../../deps.ts';
import { siteOf } from '../../../kernel/http/access.ts';
import { commandContext } from '../../../kernel/http/command-meta.ts';
import { dataEnvelope } from '../../../kernel/http/envelope.ts';
import { eraseSubject, erasureProof } from '../erasure.commands.ts';
import { eraseItemSubject } from '../erasure-items.commands.ts';

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
    completedAt: z.string().nullable(),
    keyFingerprint: z.string().nullable(),
    revoked: z.object({ sessions: z.number().int(), apiKeys: z.number().int() }).nullable(),
    scrubbed: z.object({ readModels: z.array(z.string()), mailOutbox: z.number().int() }).nullable(),
    shredded: z.array(z.string()),
  })
  .meta({ id: 'ErasureProof' });
const tags = ['privacy'];

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
          'Erase a person (or an item that is its own subject): destroy their key, revoke their access, scrub read models; answers the proof',
        body: EraseBody,
        response: { 201: dataEnvelope(Proof, 'Created') },
      },
    },
    async (req, reply) => {
      const ctx = commandContext(req, deps.clock);
      const body = req.body;
      const done =
        'item' in body
          ? await eraseItemSubject(deps, ctx, { ...body.item, reason: body.reason })
          : await eraseSubject(deps, ctx, req.actor!, body);
      reply.status(201);
      return { data: await erasureProof(deps, ctx.siteId, done.erasureId) };
    },
  );

  app.get(
    '/api/v1/admin/erasure/:id',
    {
      config: { caller: 'admin' },
      schema: {
        tags,
        summary: 'The proof of an erasure',
        params: z.object({ id: z.string().min(1).max(64) }),
        response: { 200: dataEnvelope(Proof) },
      },
    },
    async (req) => ({ data: await erasureProof(deps, siteOf(req), req.params.id) }),
  );
};
