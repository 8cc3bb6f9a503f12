import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppDeps } from '../../../deps.ts';
import { siteOf } from '../../../kernel/http/access.ts';
import { commandContext } from '../../../kernel/http/command-meta.ts';
import { dataEnvelope, listEnvelope, NoContent, TotalMeta, wholeList } from '../../../kernel/http/envelope.ts';
import { NoSubscriberGrant } from '../access.errors.ts';
import { siteAccess } from '../site-access.ts';
import { grantSubscriberAccess, revokeSubscriberAccess, subscriberGrants } from '../subscriber-access.commands.ts';
import { CollectionName, FieldList, SubscriberGrant } from './access.schemas.ts';
import { PATH_ID_MESSAGE, PATH_ID_PATTERN } from '../../../kernel/http/path-params.ts';

const GrantBody = z
  .object({
    collection: CollectionName,
    /** Only rows whose status is `published` (the default), or every row. */
    publishedOnly: z.boolean().default(true),
    fields: FieldList,
  })
  .strict();
const CollectionParams = z.object({ collection: CollectionName.regex(PATH_ID_PATTERN, PATH_ID_MESSAGE) });
const config = { caller: 'site-admin' as const };
const tags = ['access'];

/** Subscriber access: a managed policy per collection, attached to the subscriber role (site admins). */
export const subscriberAccessRoutes: FastifyPluginAsync<AppDeps> = async (plain, deps) => {
  const app = plain.withTypeProvider<ZodTypeProvider>();
  const grants = async (siteId: string) => subscriberGrants((await siteAccess(deps, siteId)).state);

  app.get(
    '/api/v1/users/subscriber-access',
    {
      config,
      schema: {
        summary: 'List subscriber read grants',
        response: { 200: listEnvelope(SubscriberGrant, TotalMeta) },
        tags,
      },
    },
    async (req) => wholeList(await grants(siteOf(req))),
  );
  app.get(
    '/api/v1/users/subscriber-access/:collection',
    {
      config,
      schema: {
        summary: 'Read the subscriber grant of a collection',
        response: { 200: dataEnvelope(SubscriberGrant) },
        tags,
        params: CollectionParams,
      },
    },
    async (req) => {
      const { collection } = req.params;
      const grant = (await grants(siteOf(req))).find((g) => g.collection === collection);
      if (!grant) throw new NoSubscriberGrant({ collection });
      return { data: grant };
    },
  );
  app.post(
    '/api/v1/users/subscriber-access',
    {
      config,
      schema: {
        summary: 'Grant subscribers read on a collection',
        response: { 201: dataEnvelope(SubscriberGrant, 'Created') },
        tags,
        body: GrantBody,
      },
    },
    async (req, reply) => {
      const { collection, publishedOnly, fields } = req.body;
      await grantSubscriberAccess(deps, commandContext(req, deps.clock), { collection, publishedOnly, fields });
      reply.status(201);
      return { data: { collection, publishedOnly, fields } };
    },
  );
  app.delete(
    '/api/v1/users/subscriber-access/:collection',
    {
      config,
      schema: {
        summary: 'Revoke the subscriber grant of a collection',
        response: { 204: NoContent },
        tags,
        params: CollectionParams,
      },
    },
    async (req, reply) => {
      await revokeSubscriberAccess(deps, commandContext(req, deps.clock), req.params);
      return reply.status(204).send();
    },
  );
};
