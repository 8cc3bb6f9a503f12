import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { AppDeps } from '../../../deps.ts';
import { siteOf } from '../../../kernel/http/access.ts';
import { commandContext } from '../../../kernel/http/command-meta.ts';
import { dataEnvelope, listEnvelope } from '../../../kernel/http/envelope.ts';
import { readAsSite } from '../../../kernel/tenancy/site.ts';
import { findInboxEntry, listInbox } from '../../../../projections/notifications/index.ts';
import { handleAll, markHandled } from '../notifications.commands.ts';
import { NotificationNotFound } from '../notifications.errors.ts';
import { inboxViewer } from '../notifications.guard.ts';
import {
  HandleAllResult,
  HandledBody,
  InboxMeta,
  InboxQuery,
  NotificationBody,
  NotificationParams,
} from './notifications.schemas.ts';

const BASE = '/api/v1/notifications';
const tags = ['notifications'];

/** Each user's inbox on the active site: the polling fallback of the realtime and push transports. */
export const notificationsRoutes: FastifyPluginAsync<AppDeps> = async (plain, deps) => {
  const app = plain.withTypeProvider<ZodTypeProvider>();

  app.get(
    BASE,
    {
      schema: {
        tags,
        summary: "The caller's notifications on the site, newest first",
        querystring: InboxQuery,
        response: { 200: listEnvelope(NotificationBody, InboxMeta) },
      },
    },
    async (req) => {
      const siteId = siteOf(req);
      const viewer = await inboxViewer(deps, req);
      const { limit, offset, unhandled } = req.query;
      const { rows, total } = await readAsSite(deps.db, siteId, (db) =>
        listInbox(db, siteId, viewer, { unhandled, limit, offset }),
      );
      return { data: rows, meta: { total, limit, offset } };
    },
  );

  app.patch(
    `${BASE}/:id`,
    {
      schema: {
        tags,
        summary: 'Mark one notification of the inbox handled, or unhandled again',
        params: NotificationParams,
        body: HandledBody,
        response: { 200: dataEnvelope(NotificationBody) },
      },
    },
    async (req) => {
      const siteId = siteOf(req);
      const viewer = await inboxViewer(deps, req);
      const find = () => readAsSite(deps.db, siteId, (db) => findInboxEntry(db, siteId, viewer, req.params.id));
      const current = await find();
      if (!current) throw new NotificationNotFound({ notificationId: req.params.id });
      if (current.handled !== req.body.handled)
        await markHandled(deps, commandContext(req, deps.clock), {
          userId: viewer.userId,
          notificationIds: [current.id],
          handled: req.body.handled,
        });
      return { data: (await find()) ?? current };
    },
  );

  app.post(
    `${BASE}/handle-all`,
    {
      schema: {
        tags,
        summary: 'Mark every unhandled notification of the inbox handled (up to 10 000 a call)',
        response: { 200: dataEnvelope(HandleAllResult) },
      },
    },
    async (req) => {
      const viewer = await inboxViewer(deps, req);
      return { data: { handled: await handleAll(deps, commandContext(req, deps.clock), viewer) } };
    },
  );
};
