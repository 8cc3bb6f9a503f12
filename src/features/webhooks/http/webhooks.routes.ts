import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { AppDeps } from '../../../deps.ts';
import { siteOf } from '../../../kernel/http/access.ts';
import { commandContext } from '../../../kernel/http/command-meta.ts';
import { dataEnvelope, listEnvelope, NoContent } from '../../../kernel/http/envelope.ts';
import { readAsSite } from '../../../kernel/tenancy/site.ts';
import { findWebhook, listDeliveries, listWebhooks } from '../../../../projections/webhooks/index.ts';
import { createWebhook, deleteWebhook, updateWebhook } from '../webhook.commands.ts';
import { WebhookNotFound } from '../webhook.errors.ts';
import { WebhookCreateBody, WebhookPatchBody } from '../webhook.schema.ts';
import {
  DeliveryListMeta,
  DeliveryQuery,
  DeliveryRecordBody,
  WebhookCreatedBody,
  WebhookListMeta,
  WebhookParams,
  WebhookRecordBody,
} from './webhooks.schemas.ts';

const BASE = '/api/v1/webhooks';
const ADMIN = { caller: 'admin' as const };
const tags = ['webhooks'];

/** Outbound webhooks of the request's site: the site's `admin` role (and instance admins) only. */
export const webhooksRoutes: FastifyPluginAsync<AppDeps> = async (plain, deps) => {
  const app = plain.withTypeProvider<ZodTypeProvider>();
  const read = async (req: FastifyRequest, id: string) => {
    const siteId = siteOf(req);
    const w = await readAsSite(deps.db, siteId, (trx) => findWebhook(trx, siteId, id));
    if (!w) throw new WebhookNotFound({ webhookId: id });
    return w;
  };

  app.get(
    BASE,
    {
      config: ADMIN,
      schema: { tags, summary: 'List webhooks', response: { 200: listEnvelope(WebhookRecordBody, WebhookListMeta) } },
    },
    async (req) => {
      const siteId = siteOf(req);
      const rows = await readAsSite(deps.db, siteId, (trx) => listWebhooks(trx, siteId));
      return { data: rows, meta: { total: rows.length } };
    },
  );

  app.get(
    `${BASE}/:id`,
    {
      config: ADMIN,
      schema: {
        tags,
        summary: 'Read a webhook',
        params: WebhookParams,
        response: { 200: dataEnvelope(WebhookRecordBody) },
      },
    },
    async (req) => ({ data: await read(req, req.params.id) }),
  );

  app.post(
    BASE,
    {
      config: { ...ADMIN, secretAnswer: true },
      schema: {
        tags,
        summary: 'Create a webhook (a secret is generated and returned once when none is given)',
        body: WebhookCreateBody,
        response: { 201: dataEnvelope(WebhookCreatedBody, 'Created') },
      },
    },
    async (req, reply) => {
      const { record, secret } = await createWebhook(deps, commandContext(req, deps.clock), req.body);
      reply.status(201);
      return { data: secret === null ? record : { ...record, secret } };
    },
  );

  app.patch(
    `${BASE}/:id`,
    {
      config: ADMIN,
      schema: {
        tags,
        summary: 'Change a webhook (a secret given rotates the signing secret)',
        params: WebhookParams,
        body: WebhookPatchBody,
        response: { 200: dataEnvelope(WebhookRecordBody) },
      },
    },
    async (req) => {
      const ctx = commandContext(req, deps.clock);
      return { data: await updateWebhook(deps, ctx, { webhookId: req.params.id, patch: req.body }) };
    },
  );

  app.delete(
    `${BASE}/:id`,
    {
      config: ADMIN,
      schema: { tags, summary: 'Delete a webhook', params: WebhookParams, response: { 204: NoContent } },
    },
    async (req, reply) => {
      await deleteWebhook(deps, commandContext(req, deps.clock), { webhookId: req.params.id });
      return reply.status(204).send();
    },
  );

  app.get(
    `${BASE}/:id/deliveries`,
    {
      config: ADMIN,
      schema: {
        tags,
        summary: 'The delivery log of a webhook, newest first',
        params: WebhookParams,
        querystring: DeliveryQuery,
        response: { 200: listEnvelope(DeliveryRecordBody, DeliveryListMeta) },
      },
    },
    async (req) => {
      const webhook = await read(req, req.params.id);
      const siteId = siteOf(req);
      const { limit, offset } = req.query;
      const { rows, total } = await readAsSite(deps.db, siteId, (trx) =>
        listDeliveries(trx, siteId, webhook.id, { limit, offset }),
      );
      return { data: rows, meta: { total, limit, offset } };
    },
  );
};
