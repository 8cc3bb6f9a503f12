import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { AppDeps } from '../../../deps.ts';
import { actorOf, siteOf } from '../../../kernel/http/access.ts';
import { commandContext } from '../../../kernel/http/command-meta.ts';
import { dataEnvelope, NoContent } from '../../../kernel/http/envelope.ts';
import { readAsSite } from '../../../kernel/tenancy/site.ts';
import { countSubscriptions } from '../../../../projections/push-subscriptions/index.ts';
import { removeSubscription, saveSubscription } from '../push.commands.ts';
import { siteSubscriptions } from '../push.fanout.ts';
import { dispatch } from '../push.sender.ts';
import { PushNeedsUser, PushNotConfigured } from '../push.errors.ts';
import {
  EndpointBody,
  PushStatusAnswer,
  PushTestAnswer,
  SubscriptionAnswer,
  SubscriptionBody,
  VapidKeyAnswer,
} from './push.schemas.ts';

const BASE = '/api/v1/push';
const tags = ['push'];

/** Web Push: the instance's VAPID key, each user's browsers' subscriptions per site, and the site's status. */
export const pushRoutes: FastifyPluginAsync<AppDeps> = async (plain, deps) => {
  const app = plain.withTypeProvider<ZodTypeProvider>();
  const userOf = (req: FastifyRequest) => {
    const actor = actorOf(req);
    if (actor.type !== 'user') throw new PushNeedsUser({});
    return actor.id;
  };

  app.get(
    `${BASE}/vapid-public-key`,
    {
      schema: {
        tags,
        summary: 'The VAPID public key browsers subscribe with (one for every site)',
        response: { 200: dataEnvelope(VapidKeyAnswer) },
      },
    },
    async () => {
      if (!deps.config.vapid) throw new PushNotConfigured({});
      return { data: { publicKey: deps.config.vapid.publicKey } };
    },
  );

  app.get(
    `${BASE}/status`,
    {
      schema: {
        tags,
        summary: 'Whether Web Push and realtime are on, and how many subscriptions the site (or the caller) has',
        response: { 200: dataEnvelope(PushStatusAnswer) },
      },
    },
    async (req) => {
      const siteId = siteOf(req);
      const actor = actorOf(req);
      const admin = deps.authorizer.isSiteAdmin(req);
      const subscriptions =
        admin || actor.type === 'user'
          ? await readAsSite(deps.db, siteId, (db) => countSubscriptions(db, siteId, admin ? undefined : actor.id))
          : 0;
      return { data: { vapidConfigured: deps.config.vapid !== null, realtimeAvailable: true, subscriptions } };
    },
  );

  app.post(
    `${BASE}/subscriptions`,
    {
      schema: {
        tags,
        summary: "Save the caller's browser's subscription on the site (an upsert by endpoint)",
        body: SubscriptionBody,
        response: { 200: dataEnvelope(SubscriptionAnswer), 201: dataEnvelope(SubscriptionAnswer, 'Created') },
      },
    },
    async (req, reply) => {
      if (!deps.config.vapid) throw new PushNotConfigured({});
      const userId = userOf(req);
      const { endpoint, keys } = req.body;
      const r = await saveSubscription(deps, commandContext(req, deps.clock), { userId, endpoint, keys });
      reply.status(r.created ? 201 : 200);
      return { data: { id: r.id, endpoint, userId } };
    },
  );

  app.delete(
    `${BASE}/subscriptions`,
    {
      schema: {
        tags,
        summary: "Remove the caller's subscription of that endpoint on the site",
        body: EndpointBody,
        response: { 204: NoContent },
      },
    },
    async (req, reply) => {
      const userId = userOf(req);
      await removeSubscription(deps, commandContext(req, deps.clock), { userId, endpoint: req.body.endpoint });
      return reply.status(204).send();
    },
  );

  app.post(
    `${BASE}/test`,
    {
      schema: {
        tags,
        summary: "Send a test notification to the site's subscribed browsers now (site admins); the dispatch summary",
        response: { 200: dataEnvelope(PushTestAnswer) },
      },
    },
    async (req) => {
      deps.authorizer.requireSiteAdmin(req);
      const ctx = commandContext(req, deps.clock);
      const payload = {
        id: `test-${ctx.metadata.correlationId}`,
        kind: 'run' as const,
        severity: 'info' as const,
        title: 'Test notification',
        body: 'Web Push reaches this browser.',
        deepLink: null,
        entityId: null,
        ts: ctx.now.toISOString(),
      };
      // Every connection of the site (on this node directly, on the others over pub/sub); outside the log, so no
      // replay brings it back.
      const frame = { siteId: ctx.siteId, checkpoint: null, type: 'notification', data: { recipient: null, payload } };
      const realtime = { available: true, delivered: deps.realtime.hub.broadcast([frame]) };
      if (!deps.config.vapid)
        return {
          data: { payload, push: { configured: false, attempted: 0, delivered: 0, gone: 0, failed: 0 }, realtime },
        };
      const targets = await siteSubscriptions(deps, ctx.siteId, null);
      const summary = await dispatch(deps, ctx.siteId, targets, JSON.stringify(payload), ctx.metadata);
      return { data: { payload, push: { configured: true, ...summary }, realtime } };
    },
  );
};
