import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppDeps } from '../../../deps.ts';
import { roleBase } from '../../access/index.ts';
import { roleOn, type Actor } from '../../../kernel/auth/actor.ts';
import { handleCommand } from '../../../kernel/es/handle-command.ts';
import { actorOf, siteOf } from '../../../kernel/http/access.ts';
import { commandMeta } from '../../../kernel/http/command-meta.ts';
import { notFound } from '../../../kernel/http/errors.ts';
import { newId } from '../../../kernel/ids.ts';
import { withSite } from '../../../kernel/tenancy/site.ts';
import { findApiKey, listApiKeys } from '../../../../projections/api-keys/index.ts';
import { apiKeyDecider, ROLE_RANK, type CreateApiKey, type RevokeApiKey } from '../api-key.decider.ts';
import { apiKeyStream } from '../api-key.events.ts';
import { dataEnvelope, listEnvelope } from '../../../kernel/http/envelope.ts';
import { ApiKeyRecord, CreatedApiKey } from './api-keys.schemas.ts';
import { generateApiKey } from '../api-key.secrets.ts';

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
  const read = (siteId: string, id: string) => withSite(db, siteId, (trx) => findApiKey(trx, siteId, id));

  app.post(
    '/api/v1/api-keys',
    {
      config,
      schema: {
        ...schema,
        summary: 'Create an API key (the plaintext key is in this answer only)',
        body: CreateApiKeyBody,
        response: { 201: dataEnvelope(CreatedApiKey, 'Created') },
      },
    },
    async (req, reply) => {
      const siteId = siteOf(req);
      const now = clock.now();
      const keyId = newId();
      const { key, prefix, secretHash } = generateApiKey(keyId, req.body.publishable);
      const role = (req.body.roleKey ?? req.body.roleId)!;
      const cmd = createCommand(req.body, { keyId, siteId, prefix, secretHash, actor: actorOf(req), now });
      // A custom role of the site ranks as the system role it stands on; an unknown one stays unknown (400).
      if (!(ROLE_RANK as readonly string[]).includes(role)) cmd.data.roleBase = await roleBase({ store }, siteId, role);
      await handleCommand(store, apiKeyDecider, apiKeyStream(siteId, keyId), cmd, {
        metadata: commandMeta(req, siteId, now),
      });
      reply.status(201);
      return { data: { ...(await read(siteId, keyId))!, key } };
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
      const keys = await withSite(db, siteId, (trx) => listApiKeys(trx, siteId, req.query.includeRevoked));
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
      if (!found) throw notFound('API key', req.params.id);
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
      const siteId = siteOf(req);
      const now = clock.now();
      const id = req.params.id;
      const cmd: RevokeApiKey = {
        type: 'RevokeApiKey',
        data: { keyId: id, siteId, by: actorOf(req).id, now: now.toISOString() },
      };
      await handleCommand(store, apiKeyDecider, apiKeyStream(siteId, id), cmd, {
        metadata: commandMeta(req, siteId, now),
      });
      return { data: (await read(siteId, id))! };
    },
  );
};

/** The creation command: the body's fields, the generated id and secret hash, and who creates the key. */
function createCommand(
  b: z.infer<typeof CreateApiKeyBody>,
  k: { keyId: string; siteId: string; prefix: string; secretHash: string; actor: Actor; now: Date },
): CreateApiKey {
  return {
    type: 'CreateApiKey',
    data: {
      keyId: k.keyId,
      siteId: k.siteId,
      name: b.name,
      role: (b.roleKey ?? b.roleId)!,
      publishable: b.publishable,
      allowedOrigins: b.allowedOrigins ?? null,
      expiresAt: b.expiresAt ? new Date(b.expiresAt).toISOString() : null,
      prefix: k.prefix,
      secretHash: k.secretHash,
      createdBy: k.actor.id,
      creatorRole: roleOn(k.actor, k.siteId) ?? '',
      now: k.now.toISOString(),
    },
  };
}
