import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import websocket from '@fastify/websocket';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { AppDeps } from '../../../deps.ts';
import { dataEnvelope } from '../../../kernel/http/envelope.ts';
import { siteFromRequest } from '../../../kernel/tenancy/site.ts';
import { Connection, FRAME_ID, type Sink } from '../realtime.connection.ts';
import { BadLastEventId, RealtimeFull, TicketOtherSite, TicketRefused } from '../realtime.errors.ts';
import {
  MAX_MESSAGE_BYTES,
  parseClientMessage,
  parseSubscriptionList,
  type LiveSubscription,
} from '../realtime.protocol.ts';
import { consumeTicket, issueTicket, type TicketHolder } from '../realtime.tickets.ts';
import { ConnectQuery, TicketAnswer } from './realtime.schemas.ts';
import { SubscriptionListInvalid } from '../realtime.errors.ts';

const BASE = '/api/v1/realtime';
const tags = ['realtime'];
/** A comment line every so often keeps proxies from closing an idle stream (and finds dead peers). */
const HEARTBEAT_MS = 25_000;
/** Bytes a connection may have waiting to be sent before it counts as too slow a reader and is closed. */
const MAX_BUFFERED = 4 * 1024 * 1024;
/** Client messages per connection in a window of ten seconds. */
const MAX_MESSAGES = 100;

interface Admitted {
  holder: TicketHolder;
  lastEventId: string | null;
  initial: LiveSubscription[];
}

/**
 * Realtime: a ticket for the signed-in caller, then one connection per ticket over Server-Sent Events
 * (`GET /api/v1/realtime`) or WebSocket (`GET /api/v1/realtime/ws`): the site's notifications and live item
 * subscriptions, resumable with `Last-Event-ID`.
 */
export const realtimeRoutes: FastifyPluginAsync<AppDeps> = async (plain, deps) => {
  await plain.register(websocket, { options: { maxPayload: MAX_MESSAGE_BYTES } });
  const app = plain.withTypeProvider<ZodTypeProvider>();
  const { hub } = deps.realtime;

  /** The ticket, the site, where to resume and the first subscriptions, checked before anything is streamed. */
  const admit = async (req: FastifyRequest): Promise<Admitted> => {
    const q = req.query as { ticket?: string; lastEventId?: string; subscribe?: string };
    if (!q.ticket) throw new TicketRefused({ reason: 'ticket_required' });
    const header = req.headers['last-event-id'];
    const lastEventId = (typeof header === 'string' && header !== '' ? header : q.lastEventId) ?? null;
    if (lastEventId !== null && !FRAME_ID.test(lastEventId)) throw new BadLastEventId({});
    const initial = q.subscribe ? parseSubscriptionList(q.subscribe) : [];
    if (!Array.isArray(initial)) throw new SubscriptionListInvalid({ message: initial.error });
    if (hub.connections() >= deps.config.SVC_REALTIME_MAX_CONNECTIONS)
      throw new RealtimeFull({ max: deps.config.SVC_REALTIME_MAX_CONNECTIONS });
    const holder = await consumeTicket(deps, q.ticket);
    const named = siteFromRequest(req.headers, req.headers.host);
    if (named && named !== holder.siteId) throw new TicketOtherSite({});
    return { holder, lastEventId, initial };
  };

  app.post(
    `${BASE}/ticket`,
    {
      schema: {
        tags,
        summary: 'A single-use ticket (one minute) that opens one realtime connection for the caller on this site',
        response: { 201: dataEnvelope(TicketAnswer, 'Created') },
      },
    },
    async (req, reply) => {
      const { ticket, expiresAt } = await issueTicket(deps, req);
      const q = `?ticket=${encodeURIComponent(ticket)}`;
      reply.status(201);
      return { data: { ticket, expiresAt, sse: `${BASE}${q}`, websocket: `${BASE}/ws${q}` } };
    },
  );

  const connect = { caller: 'public' as const, ownCredential: true, site: false };

  app.get(
    BASE,
    {
      config: connect,
      schema: {
        tags,
        summary: 'Server-Sent Events: notifications and live item changes (README "Realtime" has the frames)',
        querystring: ConnectQuery,
      },
    },
    async (req, reply) => {
      const a = await admit(req);
      reply.hijack();
      const raw = reply.raw;
      raw.writeHead(200, {
        ...(reply.getHeaders() as Record<string, string>),
        'content-type': 'text/event-stream; charset=utf-8',
        'cache-control': 'no-store',
        'x-accel-buffering': 'no',
        connection: 'keep-alive',
      });
      raw.write('retry: 3000\n\n');
      const sink: Sink = {
        send: (f) => {
          if (raw.destroyed) return;
          if (raw.writableLength > MAX_BUFFERED) return void raw.destroy();
          raw.write(`${f.id ? `id: ${f.id}\n` : ''}event: ${f.type}\ndata: ${JSON.stringify(f.data)}\n\n`);
        },
        close: () => raw.end(),
      };
      const conn = new Connection(deps, a.holder, sink, deps.config.SVC_REALTIME_MAX_SUBSCRIPTIONS);
      const beat = setInterval(() => !raw.destroyed && raw.write(': keep-alive\n\n'), HEARTBEAT_MS);
      raw.on('close', () => {
        clearInterval(beat);
        conn.dispose();
      });
      await conn.start(a.lastEventId, a.initial);
    },
  );

  const admitted = new WeakMap<FastifyRequest, Admitted>();
  app.get(
    `${BASE}/ws`,
    {
      websocket: true,
      config: connect,
      schema: {
        tags,
        summary: 'WebSocket: the same frames as JSON messages, and subscribe/unsubscribe/ping from the client',
        querystring: ConnectQuery,
      },
      preValidation: async (req) => {
        admitted.set(req, await admit(req));
      },
    },
    (socket, req) => {
      const a = admitted.get(req)!;
      const sink: Sink = {
        send: (f) => {
          if (socket.readyState !== socket.OPEN) return;
          if (socket.bufferedAmount > MAX_BUFFERED) return void socket.terminate();
          socket.send(JSON.stringify({ type: f.type, id: f.id, data: f.data }));
        },
        close: () => socket.close(1000, 'closed'),
      };
      const conn = new Connection(deps, a.holder, sink, deps.config.SVC_REALTIME_MAX_SUBSCRIPTIONS);
      let windowStart = Date.now();
      let inWindow = 0;
      socket.on('message', (data: Buffer, isBinary: boolean) => {
        if (Date.now() - windowStart > 10_000) {
          windowStart = Date.now();
          inWindow = 0;
        }
        if (++inWindow > MAX_MESSAGES) return conn.end('too_many_messages');
        const m = isBinary ? { error: 'messages are JSON text' } : parseClientMessage(data.toString());
        if ('error' in m) {
          sink.send({ type: 'error', id: null, data: { code: 'VALIDATION_FAILED', message: m.error } });
          return;
        }
        if (m.type === 'ping') conn.pong();
        else if (m.type === 'unsubscribe') void conn.removeSubscription(m.id);
        else {
          const { type: _type, ...s } = m;
          void conn.addSubscription(s);
        }
      });
      const beat = setInterval(() => socket.readyState === socket.OPEN && socket.ping(), HEARTBEAT_MS);
      socket.on('close', () => {
        clearInterval(beat);
        conn.dispose();
      });
      void conn.start(a.lastEventId, a.initial);
    },
  );
};
