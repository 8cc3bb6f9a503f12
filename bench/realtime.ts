import { generateVapidKeys } from '../src/platform/push/vapid.ts';
import WebSocket from 'ws';
import { newBrowser, startPushService } from '../test/support/push-service.ts';
import { openSse } from '../test/support/realtime-client.ts';
import { paced, rssMb } from './load.ts';
import { benchServer } from './server.ts';

/**
 * Realtime and Web Push at the size, on PostgreSQL (`npm run bench:realtime`):
 * 1. SSE clients (default 1 000, the admin sessions of a site: notifications) and WebSocket subscribers (default
 *    200, live item subscriptions of 10 editors) on one node, while items are updated at RATE/s (default 200) for
 *    SECONDS (default 20): the delay from each update's request to its frame at every subscriber (p50, p99), the
 *    frames delivered, a test notification's delay to every SSE and WebSocket client, and the server's peak RSS.
 * 2. One notification fanned out to PUSH (default 10 000) push subscriptions against the loopback push service
 *    (HTTPS, its own CA): the time of the dispatch and the server's peak RSS.
 */
const SSE = Number(process.env.SSE ?? 1000);
const WS = Number(process.env.WS ?? 200);
const RATE = Number(process.env.RATE ?? 200);
const SECONDS = Number(process.env.SECONDS ?? 20);
const PUSH = Number(process.env.PUSH ?? 10_000);
const EDITORS = 10;
/** Admins holding the SSE connections (each at most SVC_REALTIME_MAX_PER_USER, 20, like a person's tabs). */
const ADMINS = Math.ceil(SSE / 20);
const ITEMS = 200;
const PASS = 'Realtime-bench-pass-1!';

const pct = (sorted: number[], p: number) =>
  sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]! : NaN;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const push = await startPushService();
const vapid = generateVapidKeys();
const { server, login, close } = await benchServer('svc_bench_realtime', {
  LOG_LEVEL: 'warn',
  // The push part signs in a user per 50 subscriptions.
  SVC_LOGIN_MAX_PER_IP: '100000',
  VAPID_PUBLIC_KEY: vapid.pub,
  VAPID_PRIVATE_KEY: vapid.priv,
  VAPID_SUBJECT: 'mailto:bench@example.com',
  SVC_PUSH_ALLOW_PRIVATE: 'true',
  SVC_PUSH_CA_FILE: push.caFile,
  SVC_PUSH_CONCURRENCY: process.env.PUSH_CONCURRENCY ?? '16',
});
let peak = 0;
const sampler = setInterval(() => (peak = Math.max(peak, rssMb(server.child.pid!))), 200);
const sockets: { close(): void }[] = [];
try {
  const admin = await login();
  const request = async <T>(token: string, method: string, path: string, body?: unknown): Promise<T> => {
    const res = await fetch(`${server.url}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        'x-svc-site': 'bench',
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
    return (res.status === 204 ? null : ((await res.json()) as { data: T }).data) as T;
  };
  await request(admin, 'POST', '/api/v1/collections', { name: 'articles' });
  await request(admin, 'POST', '/api/v1/fields/articles', { field: 'title', type: 'string' });
  await request(admin, 'POST', '/api/v1/fields/articles', { field: 'sent_at', type: 'bigInteger' });
  const ids = Array.from({ length: ITEMS }, (_, i) => `a${i}`);
  await request(
    admin,
    'POST',
    '/api/v1/items/articles',
    ids.map((id) => ({ id, title: id, sent_at: 0 })),
  );
  const editors: string[] = [];
  for (let i = 0; i < EDITORS; i++) {
    const who = { email: `editor${i}@example.com`, password: PASS };
    await request(admin, 'POST', '/api/v1/users', { ...who, roleId: 'editor' });
    editors.push(await login(who));
  }
  const admins: string[] = [];
  for (let i = 0; i < ADMINS; i++) {
    const who = { email: `admin${i}@example.com`, password: PASS };
    await request(admin, 'POST', '/api/v1/users', { ...who, roleId: 'admin' });
    admins.push(await login(who));
  }
  const ticket = async (token: string) =>
    (await request<{ ticket: string }>(token, 'POST', '/api/v1/realtime/ticket')).ticket;

  // 1. Connections.
  const rssIdle = rssMb(server.child.pid!);
  const sse = [];
  for (let i = 0; i < SSE; i++) {
    const tk = await ticket(admins[i % ADMINS]!);
    const c = await openSse(`${server.url}/api/v1/realtime?ticket=${encodeURIComponent(tk)}`);
    if (c.status !== 200) throw new Error(`SSE ${i}: ${c.status} ${c.body}`);
    sse.push(c);
    sockets.push(c);
  }
  const itemDelays: number[] = [];
  const noteDelays: number[] = [];
  let itemFrames = 0;
  const wsUrl = server.url.replace('http', 'ws');
  for (let i = 0; i < WS; i++) {
    const tk = await ticket(editors[i % EDITORS]!);
    const socket = new WebSocket(`${wsUrl}/api/v1/realtime/ws?ticket=${encodeURIComponent(tk)}`);
    await new Promise<void>((resolve, reject) => {
      socket.on('open', () => resolve());
      socket.on('error', reject);
    });
    socket.on('message', (raw) => {
      const m = JSON.parse(raw.toString()) as { type: string; data: { item?: { sent_at?: number }; ts?: string } };
      if (m.type === 'item' && m.data.item?.sent_at) {
        itemFrames++;
        itemDelays.push(Date.now() - Number(m.data.item.sent_at));
      } else if (m.type === 'notification' && m.data.ts) noteDelays.push(Date.now() - Date.parse(m.data.ts));
    });
    socket.send(JSON.stringify({ type: 'subscribe', id: 'all', collection: 'articles', events: ['update'] }));
    sockets.push(socket);
  }
  await sleep(2000);
  const rssConnected = rssMb(server.child.pid!);

  // Updates at RATE per second, each carrying the time it was sent.
  const {
    sent,
    failed,
    elapsedS: elapsed,
  } = await paced(RATE, SECONDS, (i) =>
    request(admin, 'PATCH', `/api/v1/items/articles/${ids[i % ITEMS]!}`, { sent_at: Date.now() }),
  );
  await sleep(3000);
  // A test notification to every connection of the site.
  await request(admin, 'POST', '/api/v1/push/test');
  await sleep(2000);
  const sseNotes = sse.flatMap((c) =>
    c.frames.filter((f) => f.type === 'notification').map((f) => f.at! - Date.parse(f.data.ts as string)),
  );
  const sseNoteSorted = sseNotes.sort((a, b) => a - b);
  const ssePeak = peak;
  for (const s of sockets) s.close();
  const itemSorted = [...itemDelays].sort((a, b) => a - b);
  const noteSorted = [...noteDelays].sort((a, b) => a - b);
  const realtime = {
    sseClients: SSE,
    wsSubscribers: WS,
    updatesSent: sent,
    updatesFailed: failed,
    updatesPerSecond: Math.round(sent / elapsed),
    itemFramesExpected: sent * WS,
    itemFramesReceived: itemFrames,
    itemDelayP50Ms: pct(itemSorted, 50),
    itemDelayP99Ms: pct(itemSorted, 99),
    testNotificationSseClientsReached: sseNotes.length,
    testNotificationSseDelayP50Ms: pct(sseNoteSorted, 50),
    testNotificationSseDelayP99Ms: pct(sseNoteSorted, 99),
    testNotificationWsDelayP50Ms: pct(noteSorted, 50),
    testNotificationWsDelayP99Ms: pct(noteSorted, 99),
    rssIdleMb: rssIdle,
    rssConnectedMb: rssConnected,
    rssPeakMb: ssePeak,
  };
  console.log(JSON.stringify({ realtime }, null, 2));

  // 2. Web Push fan-out: 50 subscriptions per user (the per-user cap), as many users as it takes.
  const users = Math.ceil(PUSH / 50);
  let made = 0;
  for (let u = 0; u < users && made < PUSH; u++) {
    const who = { email: `pusher${u}@example.com`, password: PASS };
    await request(admin, 'POST', '/api/v1/users', { ...who, roleId: 'editor' });
    const token = await login(who);
    const batch = [];
    for (let s = 0; s < 50 && made < PUSH; s++, made++) {
      batch.push(
        request(token, 'POST', '/api/v1/push/subscriptions', newBrowser().subscription(`${push.origin}/p/${u}-${s}`)),
      );
    }
    await Promise.all(batch);
  }
  await sleep(1000);
  push.received.length = 0;
  peak = rssMb(server.child.pid!);
  const rssBeforePush = peak;
  const t0 = Date.now();
  const summary = await request<{ push: Record<string, number> }>(admin, 'POST', '/api/v1/push/test');
  const pushMs = Date.now() - t0;
  console.log(
    JSON.stringify(
      {
        push: {
          subscriptions: made,
          dispatchMs: pushMs,
          perSecond: Math.round((made / pushMs) * 1000),
          summary: summary.push,
          receivedByPushService: push.received.length,
          rssBeforeMb: rssBeforePush,
          rssPeakMb: peak,
        },
      },
      null,
      2,
    ),
  );
} finally {
  clearInterval(sampler);
  for (const s of sockets) s.close();
  await close();
  await push.close();
}
