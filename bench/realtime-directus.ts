import WebSocket from 'ws';
import { startDirectus } from './directus.ts';
import { paced, rssMb } from './load.ts';
import { benchServer } from './server.ts';

/**
 * Live item subscriptions side by side with Directus's WebSocket subscriptions, back to back on this machine
 * (`npm run bench:realtime-directus`): WS (default 200) subscribers of one collection, items updated at RATE/s
 * (default 200) for SECONDS (default 20), ours, then Directus, then ours again; the delay from each update's
 * request to its frame at every subscriber (p50, p99), frames received of those expected, and the server's peak RSS.
 *
 * DIRECTUS_INSTALL names a work dir of `../shared/peer-directus/run.sh` (its install); this script starts that
 * Directus on a database of its own with WEBSOCKETS_ENABLED=true and the peer's other settings (bench/directus.ts).
 * Directus's subscribers are its admin (no permission rules to evaluate); ours are 10 editors (rules evaluated per
 * frame).
 */
const WS = Number(process.env.WS ?? 200);
const RATE = Number(process.env.RATE ?? 200);
const SECONDS = Number(process.env.SECONDS ?? 20);
const DIRECTUS_INSTALL = process.env.DIRECTUS_INSTALL;
const ITEMS = 200;
const EDITORS = 10;
const PASS = 'Realtime-bench-pass-1!';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const pct = (sorted: number[], p: number) =>
  sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]! : NaN;

interface Target {
  name: string;
  pid: number;
  /** Opens one subscriber; `onUpdate` gets the send time carried by each update frame. */
  subscribe(onUpdate: (sentAt: number) => void): Promise<WebSocket>;
  /** Sends one update carrying the time it is sent. */
  update(index: number): Promise<void>;
}

/** The scenario, the same for both. */
async function measure(t: Target) {
  const delays: number[] = [];
  const sockets: WebSocket[] = [];
  for (let i = 0; i < WS; i++) sockets.push(await t.subscribe((sentAt) => delays.push(Date.now() - sentAt)));
  await sleep(2000);
  let peak = rssMb(t.pid);
  const sampler = setInterval(() => (peak = Math.max(peak, rssMb(t.pid))), 200);
  const { sent, failed, elapsedS: elapsed } = await paced(RATE, SECONDS, (i) => t.update(i));
  await sleep(5000);
  clearInterval(sampler);
  for (const s of sockets) s.close();
  const sorted = delays.sort((a, b) => a - b);
  return {
    system: t.name,
    subscribers: WS,
    updatesPerSecond: Math.round(sent / elapsed),
    updatesFailed: failed,
    framesExpected: sent * WS,
    framesReceived: delays.length,
    delayP50Ms: pct(sorted, 50),
    delayP99Ms: pct(sorted, 99),
    rssPeakMb: peak,
  };
}

async function ours(): Promise<{ target: Target; close(): Promise<void> }> {
  const { server, login, close } = await benchServer('svc_bench_realtime_peer', { LOG_LEVEL: 'warn' });
  const admin = await login();
  const request = async (token: string, method: string, p: string, body?: unknown) => {
    const res = await fetch(`${server.url}${p}`, {
      method,
      headers: { authorization: `Bearer ${token}`, 'x-svc-site': 'bench', 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    if (!res.ok) throw new Error(`${method} ${p}: ${res.status} ${await res.text()}`);
    return res.status === 204 ? null : ((await res.json()) as { data: Record<string, string> }).data;
  };
  await request(admin, 'POST', '/api/v1/collections', { name: 'articles' });
  await request(admin, 'POST', '/api/v1/fields/articles', { field: 'title', type: 'string' });
  await request(
    admin,
    'POST',
    '/api/v1/items/articles',
    Array.from({ length: ITEMS }, (_, i) => ({ id: `a${i}`, title: '0' })),
  );
  const editors: string[] = [];
  for (let i = 0; i < EDITORS; i++) {
    const who = { email: `peer-editor${i}@example.com`, password: PASS };
    await request(admin, 'POST', '/api/v1/users', { ...who, roleId: 'editor' });
    editors.push(await login(who));
  }
  let n = 0;
  const target: Target = {
    name: 'this service',
    pid: server.child.pid!,
    subscribe: async (onUpdate) => {
      const { ticket } = (await request(editors[n++ % EDITORS]!, 'POST', '/api/v1/realtime/ticket'))!;
      const url = `${server.url.replace('http', 'ws')}/api/v1/realtime/ws?ticket=${encodeURIComponent(ticket!)}`;
      const s = new WebSocket(url);
      await new Promise((resolve, reject) => s.on('open', resolve).on('error', reject));
      s.on('message', (raw) => {
        const m = JSON.parse(raw.toString()) as { type: string; data: { item?: { title?: string } } };
        if (m.type === 'item' && m.data.item?.title) onUpdate(Number(m.data.item.title));
      });
      s.send(
        JSON.stringify({
          type: 'subscribe',
          id: 's',
          collection: 'articles',
          events: ['update'],
          query: { fields: ['id', 'title'] },
        }),
      );
      return s;
    },
    update: async (i) => {
      await request(admin, 'PATCH', `/api/v1/items/articles/a${i % ITEMS}`, { title: String(Date.now()) });
    },
  };
  return { target, close };
}

async function directus(install: string): Promise<{ target: Target; close(): Promise<void> }> {
  const d = await startDirectus({
    install,
    port: 8056,
    db: 'directus_rt_bench',
    freeze: false,
    env: { WEBSOCKETS_ENABLED: 'true' },
  });
  const api = async (method: string, p: string, body?: unknown) => {
    const res = await fetch(`${d.url}${p}`, {
      method,
      headers: { authorization: `Bearer ${d.token}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    if (!res.ok) throw new Error(`${method} ${p}: ${res.status} ${await res.text()}`);
    return res.status === 204 ? null : ((await res.json()) as { data: unknown }).data;
  };
  await api('POST', '/collections', {
    collection: 'articles',
    schema: {},
    meta: {},
    fields: [
      {
        field: 'id',
        type: 'integer',
        meta: { hidden: true },
        schema: { is_primary_key: true, has_auto_increment: true },
      },
      { field: 'title', type: 'string', schema: {}, meta: {} },
    ],
  });
  const ids = (
    (await api(
      'POST',
      '/items/articles',
      Array.from({ length: ITEMS }, () => ({ title: '0' })),
    )) as { id: number }[]
  ).map((r) => r.id);
  const target: Target = {
    name: `Directus ${d.version}`,
    pid: d.pid,
    subscribe: async (onUpdate) => {
      const s = new WebSocket(`${d.url.replace('http', 'ws')}/websocket`);
      await new Promise((resolve, reject) => s.on('open', resolve).on('error', reject));
      const ready = new Promise<void>((resolve) => {
        s.on('message', (raw) => {
          const m = JSON.parse(raw.toString()) as {
            type: string;
            status?: string;
            event?: string;
            data?: { title?: string }[];
          };
          if (m.type === 'ping') s.send(JSON.stringify({ type: 'pong' }));
          else if (m.type === 'auth' && m.status === 'ok')
            s.send(
              JSON.stringify({
                type: 'subscribe',
                collection: 'articles',
                event: 'update',
                query: { fields: ['id', 'title'] },
                uid: 's',
              }),
            );
          else if (m.type === 'subscription' && m.event === 'init') resolve();
          else if (m.type === 'subscription' && m.event === 'update')
            for (const item of m.data ?? []) onUpdate(Number(item.title));
        });
      });
      s.send(JSON.stringify({ type: 'auth', access_token: d.token }));
      await ready;
      return s;
    },
    update: async (i) => {
      await api('PATCH', `/items/articles/${ids[i % ids.length]}`, { title: String(Date.now()) });
    },
  };
  return { target, close: () => d.stop() };
}

const rows = [];
const runOurs = async () => {
  const o = await ours();
  try {
    rows.push(await measure(o.target));
  } finally {
    await o.close();
  }
};
await runOurs();
if (DIRECTUS_INSTALL) {
  const d = await directus(DIRECTUS_INSTALL);
  try {
    rows.push(await measure(d.target));
  } finally {
    await d.close();
  }
  await runOurs();
} else console.log('DIRECTUS_INSTALL not set: Directus skipped');
console.log(JSON.stringify(rows, null, 2));
