import { afterAll, describe, expect, it } from 'vitest';
import { adminEnv, eventually, flowClient, kill, runsOf, type Call } from '../support/flow-process.ts';
import { processStore } from '../support/process-store.ts';
import { startServer, type ServerProcess } from '../support/server-process.ts';

/**
 * SIGKILL while a flow's runs are under way, then a restart: every run completes, each of its steps is recorded once,
 * and each item step's write happened once (one item made per run, one update of it), whatever step the kill hit.
 */
const RUNS = 120;
const NODES = ['make', 'touch', 'pause', 'note'];
const store = processStore('flowcrash');
const serverEnv = () => ({ ...store.env(), ...adminEnv, SVC_FLOW_INTERVAL_MS: '50' });
const servers: ServerProcess[] = [];
afterAll(async () => {
  for (const s of servers) await kill(s);
  await store.drop();
});

const start = async () => {
  const s = await startServer(serverEnv());
  servers.push(s);
  return s;
};
const node = (id: string, operation: string, options: object) => ({ id, operation, options });
const graph = {
  nodes: [
    node('make', 'item.create', { collection: 'notes', data: { title: 'made-{{ $trigger.n }}' } }),
    node('touch', 'item.update', {
      collection: 'notes',
      id: '{{ make.id }}',
      data: { title: 'done-{{ $trigger.n }}' },
    }),
    // A durable timer: every run that has begun stays open a while, so the kill always meets runs in flight.
    node('pause', 'sleep', { ms: 3000 }),
    node('note', 'log', { message: 'made {{ make.id }}' }),
  ],
  edges: [
    { from: 'make', to: 'touch', on: 'resolve' },
    { from: 'touch', to: 'pause', on: 'resolve' },
    { from: 'pause', to: 'note', on: 'resolve' },
  ],
};
const total = async (call: Call, query: string) => {
  const res = await call('GET', `/api/v1/items/notes?limit=1&meta=total_count&${query}`);
  return (res.body as unknown as { meta: { total: number } }).meta.total;
};

describe('SIGKILL during flow runs', () => {
  it('finishes every run after a restart with each step recorded and each item write made once', async () => {
    await store.create();
    const first = await start();
    const call = await flowClient(first);
    expect((await call('POST', '/api/v1/collections', { name: 'notes' })).status).toBe(201);
    expect((await call('POST', '/api/v1/fields/notes', { field: 'title', type: 'string' })).status).toBe(201);
    const flow = await call('POST', '/api/v1/flows', {
      name: 'f',
      trigger: 'manual',
      status: 'active',
      runAs: 'editor',
      graph,
    });
    expect(flow.status, JSON.stringify(flow.body)).toBe(201);
    const flowId = (flow.body.data as { id: string }).id;
    // All asked at once, so the worker meets a backlog rather than keeping pace with one request after another.
    const asked = await Promise.all(
      Array.from({ length: RUNS }, (_, n) => call('POST', `/api/v1/flows/${flowId}/run`, { n })),
    );
    expect(asked.map((r) => r.status)).toEqual(Array(RUNS).fill(202));
    // Kill once the worker is under way: some steps recorded while runs are still open, so the kill meets work in
    // flight (the last look before the kill saw unfinished runs; they cannot have ended by themselves since).
    const seen = await eventually('a step recorded', 60_000, async () => {
      const all = await runsOf(call, flowId);
      return all.some((r) => r.steps.length > 0) ? all : null;
    });
    await kill(first);
    const open = seen.filter((r) => r.status !== 'succeeded' && r.status !== 'failed');
    expect(open.length, 'runs still under way when the process was killed').toBeGreaterThan(0);

    const again = await start();
    const call2 = await flowClient(again);
    const runs = await eventually('every run ended', 120_000, async () => {
      const all = await runsOf(call2, flowId);
      return all.length === RUNS && all.every((r) => r.status === 'succeeded' || r.status === 'failed') ? all : null;
    });
    for (const r of runs) {
      expect(r.status, JSON.stringify(r)).toBe('succeeded');
      expect(r.steps.map((s) => `${s.nodeId}:${s.status}`)).toEqual(NODES.map((n) => `${n}:succeeded`));
    }
    expect(await total(call2, '')).toBe(RUNS);
    expect(await total(call2, 'filter[title][_starts_with]=done-')).toBe(RUNS);
    for (const r of runs.slice(0, 10)) {
      const id = (r.steps[0] as unknown as { output: { id: string } }).output.id;
      const revisions = await call2('GET', `/api/v1/items/notes/${id}/revisions?limit=10`);
      expect(revisions.status).toBe(200);
      expect((revisions.body.data as unknown[]).length).toBe(2);
    }
  }, 240_000);
});
