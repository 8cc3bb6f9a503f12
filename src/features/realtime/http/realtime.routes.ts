import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import websocket from '@fastify/websocket';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { AppDeps } from '../../../deps.ts';
import { dataEnvelope } from '../../../kernel/http/envelope.ts';
import { Connection, isFrameId, Semaphore, type Sink } from '../realtime.connection.ts';
import {
  BadLastEventId,
  RealtimeFull,
  SubscriptionListInvalid,
  TicketOtherSite,
  TicketRefused,
  TooManyConnections,
  UpgradeRequired,
} from '../realtime.errors.ts';
import {
  MAX_MESSAGE_BYTES,
  parseClientMessage,
  parseSubscriptionList,
  type LiveSubscription,
} from '../realtime.protocol.ts';
import { issueTicket, readTicket, spendTicket, type TicketHolder } from '../realtime.tickets.ts';
import { ConnectQuery, TicketAnswer } from './realtime.schemas.ts';

const BASE = '/api/v1/realtime';
const tags = ['realtime'];
/** A comment line every so often keeps proxies from closing an idle stream (and finds dead peers). */
const HEARTBEAT_MS = 25_000;
/** Bytes a connection may have waiting to be sent before it counts as too slow a reader and is closed. */
const MAX_BUFFERED = 4 * 1024 * 1024;
/** Client messages per connection in a window of ten seconds. */
const MAX_MESSAGES = 100;
/** Replays a node runs at once (each reads the log). */
const REPLAYS_AT_ONCE = 4;

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
  const replays = new Semaphore(REPLAYS_AT_ONCE);
  const limits = {
    maxSubscriptions: deps.config.SVC_REALTIME_MAX_SUBSCRIPTIONS,
    maxReplay: deps.config.SVC_REALTIME_MAX_REPLAY,
    replays,
  };
  /** This node's connections per site and user. */
  const perUser = new Map<string, number>();
  app.addHook('preClose', async () => hub.endAll('shutting_down'));
  const userKey = (h: TicketHolder) => `${h.siteId}\u0000${h.userId}`;
  /** Counts the connection in while it lives; the returned function counts it out (once). */
  const held = (h: TicketHolder) => {
    const key = userKey(h);
    perUser.set(key, (perUser.get(key) ?? 0) + 1);
    let done = false;
    return () => {
      if (done) return;
      done = true;
      const n = (perUser.get(key) ?? 1) - 1;
      if (n > 0) perUser.set(key, n);
      else perUser.delete(key);
    };
  };

  /**
   * The ticket, the site, where to resume and the first subscriptions, checked before anything is streamed; the
   * ticket is spent last, so a refused request leaves it usable.
   */
  const admit = async (req: FastifyRequest): Promise<Admitted> => {
    const q = req.query as { ticket?: string; lastEventId?: string; subscribe?: string };
    if (!q.ticket) throw new TicketRefused({ reason: 'ticket_required' });
    const header = req.headers['last-event-id'];
    const lastEventId = (typeof header === 'string' && header !== '' ? header : q.lastEventId) ?? null;
    if (lastEventId !== null && !isFrameId(lastEventId)) throw new BadLastEventId({});
    const initial = q.subscribe ? parseSubscriptionList(q.subscribe) : [];
    if (!Array.isArray(initial)) throw new SubscriptionListInvalid({ message: initial.error });
    if (hub.connections() >= deps.config.SVC_REALTIME_MAX_CONNECTIONS)
      throw new RealtimeFull({ max: deps.config.SVC_REALTIME_MAX_CONNECTIONS });
    const holder = await readTicket(deps, q.ticket);
    // Only a site named outright: an EventSource cannot set headers, and a host name need not be a site's.
    const named = req.headers['x-svc-site'];
    if (named !== undefined && named !== holder.siteId) throw new TicketOtherSite({});
    const maxPerUser = deps.config.SVC_REALTIME_MAX_PER_USER;
    if ((perUser.get(userKey(holder)) ?? 0) >= maxPerUser) throw new TooManyConnections({ max: maxPerUser });
    await spendTicket(deps, holder.ticketId);
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
      // A HEAD would open a stream that never sends a body.
      exposeHeadRoute: false,
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
      const conn = new Connection(deps, a.holder, sink, limits);
      const release = held(a.holder);
      const beat = setInterval(() => {
        if (raw.destroyed) return;
        raw.write(': keep-alive\n\n');
        void conn.recheck();
      }, HEARTBEAT_MS);
      const gone = () => {
        clearInterval(beat);
        conn.dispose();
        release();
      };
      raw.on('close', gone);
      // The client may have left while it was admitted: then no 'close' is coming.
      if (raw.destroyed || req.raw.destroyed) return gone();
      await conn.start(a.lastEventId, a.initial);
    },
  );

  const admitted = new WeakMap<FastifyRequest, Admitted>();
  app.get(
    `${BASE}/ws`,
    {
      websocket: true,
      config: connect,
      exposeHeadRoute: false,
      schema: {
        tags,
        summary: 'WebSocket: the same frames as JSON messages, and subscribe/unsubscribe/ping from the client',
        querystring: ConnectQuery,
      },
      preValidation: async (req) => {
        // A plain GET would spend the ticket and get nothing: refused before it is read.
        if (String(req.headers.upgrade ?? '').toLowerCase() !== 'websocket') throw new UpgradeRequired({});
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
      const conn = new Connection(deps, a.holder, sink, limits);
      const release = held(a.holder);
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
      // A peer that did not answer the last ping is gone.
      let alive = true;
      socket.on('pong', () => (alive = true));
      const beat = setInterval(() => {
        if (socket.readyState !== socket.OPEN) return;
        if (!alive) return void socket.terminate();
        alive = false;
        socket.ping();
        void conn.recheck();
      }, HEARTBEAT_MS);
      socket.on('close', () => {
        clearInterval(beat);
        conn.dispose();
        release();
      });
      if (socket.readyState !== socket.OPEN) {
        clearInterval(beat);
        conn.dispose();
        return release();
      }
      void conn.start(a.lastEventId, a.initial);
    },
  );
};
