import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startServer } from '../test/support/server-process.ts';
import { rssMb } from './load.ts';
import { BENCH_ADMIN, benchServer } from './server.ts';

/**
 * An event flow (condition → transform → item.update of the item that started it) over N item creations (default
 * 10 000, in bulk writes of 500), on PostgreSQL, or the embedded database with DB=pglite: runs per second, the lag
 * from the item's event to its run's end (p50, p99), and the server's peak resident memory. The flow hears only
 * `items.create`, so its own updates start nothing (the guard against a loop). `npm run bench:flows`.
 */
const N = Number(process.env.N ?? 10_000);
const PGLITE = process.env.DB === 'pglite';
const BATCH = 500;

async function start() {
  if (!PGLITE) return benchServer('svc_bench_flows');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-bench-flows-'));
  const server = await startServer({
    SVC_DATA_DIR: dir,
    DATABASE_URL: '',
    SVC_ADMIN_EMAIL: BENCH_ADMIN.email,
    SVC_ADMIN_PASSWORD: BENCH_ADMIN.password,
    SVC_SITE_ID: 'bench',
  });
  const login = async () => {
    const res = await fetch(`${server.url}/api/v1/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(BENCH_ADMIN),
    });
    return ((await res.json()) as { data: { token: string } }).data.token;
  };
  const close = async () => {
    server.child.kill('SIGTERM');
    await server.exited;
    fs.rmSync(dir, { recursive: true, force: true });
  };
  return { server, login, close };
}

type Run = { status: string; input: { at: string }; finishedAt: string | null; steps: unknown[] };
const pct = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;

const { server, login, close } = await start();
let peak = 0;
const sampler = setInterval(() => (peak = Math.max(peak, rssMb(server.child.pid!))), 250);
try {
  const token = await login();
  const call = async <T>(method: string, p: string, body?: unknown): Promise<T> => {
    const res = await fetch(`${server.url}${p}`, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        'x-svc-site': 'bench',
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    if (!res.ok) throw new Error(`${method} ${p}: ${res.status} ${await res.text()}`);
    return (await res.json()) as T;
  };
  await call('POST', '/api/v1/collections', { name: 'orders' });
  await call('POST', '/api/v1/fields/orders', { field: 'amount', type: 'integer' });
  await call('POST', '/api/v1/fields/orders', { field: 'label', type: 'string' });
  const node = (id: string, operation: string, options: object) => ({ id, operation, options });
  const flow = await call<{ data: { id: string } }>('POST', '/api/v1/flows', {
    name: 'label orders',
    trigger: 'event',
    triggerOptions: { events: ['items.create'], collections: ['orders'] },
    status: 'active',
    runAs: 'editor',
    graph: {
      nodes: [
        node('paid', 'condition', { filter: { '$trigger.data.amount': { _gt: 0 } } }),
        node('name', 'transform', { template: { label: 'order {{ $trigger.id }} of {{ $trigger.data.amount }}' } }),
        node('save', 'item.update', {
          collection: 'orders',
          id: '{{ $trigger.id }}',
          data: { label: '{{ name.label }}' },
        }),
      ],
      edges: [
        { from: 'paid', to: 'name', on: 'resolve' },
        { from: 'name', to: 'save', on: 'resolve' },
      ],
    },
  });
  const flowId = flow.data.id;
  const rssBefore = rssMb(server.child.pid!);

  const t0 = performance.now();
  for (let i = 0; i < N; i += BATCH)
    await call(
      'POST',
      '/api/v1/items/orders',
      Array.from({ length: Math.min(BATCH, N - i) }, (_, k) => ({ id: `o${i + k}`, amount: 1 + ((i + k) % 97) })),
    );
  const writeS = (performance.now() - t0) / 1000;
  const ended = async () => {
    const meta = async (status: string) =>
      (await call<{ meta: { total: number } }>('GET', `/api/v1/flows/${flowId}/runs?status=${status}&limit=1`)).meta
        .total;
    return (await meta('succeeded')) + (await meta('failed'));
  };
  for (let done = await ended(); done < N; done = await ended()) await new Promise((r) => setTimeout(r, 500));
  const wallS = (performance.now() - t0) / 1000;

  const runs: Run[] = [];
  for (let page = 1; runs.length < N; page++)
    runs.push(...(await call<{ data: Run[] }>('GET', `/api/v1/flows/${flowId}/runs?limit=200&page=${page}`)).data);
  const failed = runs.filter((r) => r.status !== 'succeeded' || r.steps.length !== 3).length;
  const lags = runs.map((r) => Date.parse(r.finishedAt!) - Date.parse(r.input.at)).sort((a, b) => a - b);
  const first = Math.min(...runs.map((r) => Date.parse(r.input.at)));
  const last = Math.max(...runs.map((r) => Date.parse(r.finishedAt!)));
  const perS = Math.round(N / ((last - first) / 1000));
  const s = (ms: number) => (ms / 1000).toFixed(1);
  console.log(
    [
      `An event flow of 3 steps (condition → transform → item.update), ${PGLITE ? 'PGlite' : 'PostgreSQL'}, ${N} item creations in bulk writes of ${BATCH}.`,
      '',
      '| runs | not succeeded with 3 steps | writes s | all runs ended s | runs/s | lag p50 s | lag p99 s | lag max s | RSS before MB | peak RSS MB |',
      '| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |',
      `| ${runs.length} | ${failed} | ${writeS.toFixed(1)} | ${wallS.toFixed(1)} | ${perS} | ${s(pct(lags, 50))} | ${s(pct(lags, 99))} | ${s(lags.at(-1)!)} | ${rssBefore} | ${peak} |`,
    ].join('\n'),
  );
} finally {
  clearInterval(sampler);
  await close();
}
