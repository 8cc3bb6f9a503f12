import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppDeps } from '../../../deps.ts';
import { roleOn } from '../../../kernel/auth/actor.ts';
import { actorOf, siteOf } from '../../../kernel/http/access.ts';
import { commandContext } from '../../../kernel/http/command-meta.ts';
import { readAsSite } from '../../../kernel/tenancy/site.ts';
import { findApiKey, listApiKeys } from '../../../../projections/api-keys/index.ts';
import { createApiKey, revokeApiKey } from '../api-key.commands.ts';
import { ApiKeyNotFound } from '../api-key.errors.ts';
import { dataEnvelope, listEnvelope } from '../../../kernel/http/envelope.ts';
import { ApiKeyRecord, CreatedApiKey } from './api-keys.schemas.ts';

/** `scheme://host[:port]` as browsers send it in Origin; stored in its canonical form. */
const Origin = z
  .string()
  .max(300)
  .transform((s, ctx) => {
    const u = URL.canParse(s) ? new URL(s) : null;
    const bare = u && !u.username && !u.password && u.pathname === '/' && !u.search && !u.hash && !s.endsWith('/');
    if (u && bare && (u.protocol === 'https:' || u.protocol === 'http:')) return u.origin;
    ctx.addIssue({ code: 'custom', message: 'an origin is scheme://host[:port] (http or https, no path)' });
    return z.NEVER;
  });
const RoleKey = z.string().min(1).max(64);
const CreateApiKeyBody = z
  .object({
    name: z.string().trim().min(1).max(200),
    roleId: RoleKey.optional(),
    roleKey: RoleKey.optional(),
    publishable: z.boolean().default(false),
    allowedOrigins: z.array(Origin).min(1).max(50).optional(),
    expiresAt: z.iso.datetime({ offset: true }).optional(),
  })
  .strict()
  .refine((b) => (b.roleId === undefined) !== (b.roleKey === undefined), {
    message: 'give exactly one of roleId and roleKey',
    path: ['roleKey'],
  });
const ListQuery = z.object({ includeRevoked: z.stringbool().default(false) }).strict();
const Id = z.object({ id: z.string().regex(/^[A-Za-z0-9]{1,64}$/, 'not an API key id') });

/** API keys of the active site, for its admins. The plaintext key is in the creation answer and nowhere else. */
export const apiKeysRoutes: FastifyPluginAsync<AppDeps> = async (plain, { db, store, clock }) => {
  const app = plain.withTypeProvider<ZodTypeProvider>();
  const config = { caller: 'site-admin' as const };
  const schema = { tags: ['api-keys'] };
  const read = (siteId: string, id: string) => readAsSite(db, siteId, (trx) => findApiKey(trx, siteId, id));

  app.post(
    '/api/v1/api-keys',
    {
      config: { ...config, secretAnswer: true },
      schema: {
        ...schema,
        summary: 'Create an API key (the plaintext key is in this answer only)',
        body: CreateApiKeyBody,
        response: { 201: dataEnvelope(CreatedApiKey, 'Created') },
      },
    },
    async (req, reply) => {
      const ctx = commandContext(req, clock);
      const { roleId, roleKey, ...body } = req.body;
      const creatorRole = roleOn(actorOf(req), ctx.siteId) ?? '';
      const { keyId, key } = await createApiKey({ store }, ctx, { ...body, role: (roleKey ?? roleId)!, creatorRole });
      reply.status(201);
      return { data: { ...(await read(ctx.siteId, keyId))!, key } };
    },
  );

  app.get(
    '/api/v1/api-keys',
    {
      config,
      schema: {
        ...schema,
        summary: 'List API keys',
        querystring: ListQuery,
        response: { 200: listEnvelope(ApiKeyRecord, z.object({ total: z.number().int() })) },
      },
    },
    async (req) => {
      const siteId = siteOf(req);
      const keys = await readAsSite(db, siteId, (trx) => listApiKeys(trx, siteId, req.query.includeRevoked));
      return { data: keys, meta: { total: keys.length } };
    },
  );

  app.get(
    '/api/v1/api-keys/:id',
    {
      config,
      schema: { ...schema, summary: 'Read an API key', params: Id, response: { 200: dataEnvelope(ApiKeyRecord) } },
    },
    async (req) => {
      const found = await read(siteOf(req), req.params.id);
      if (!found) throw new ApiKeyNotFound({ keyId: req.params.id });
      return { data: found };
    },
  );

  app.delete(
    '/api/v1/api-keys/:id',
    {
      config,
      schema: { ...schema, summary: 'Revoke an API key', params: Id, response: { 200: dataEnvelope(ApiKeyRecord) } },
    },
    async (req) => {
      const ctx = commandContext(req, clock);
      await revokeApiKey({ store }, ctx, { keyId: req.params.id });
      return { data: (await read(ctx.siteId, req.params.id))! };
    },
  );
};
