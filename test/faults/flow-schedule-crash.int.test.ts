import { afterAll, describe, expect, it } from 'vitest';
import { adminEnv, eventually, flowClient, kill, runsOf, type Call } from '../support/flow-process.ts';
import { processStore } from '../support/process-store.ts';
import { startServer, type ServerProcess } from '../support/server-process.ts';

/**
 * A schedule flow firing every minute (the server has no clock of its own to move, so the tests wait for a real
 * minute's firing, bounded by polling): killed around the tick, or served by two processes on one PostgreSQL, the
 * firing starts one run, whose item is made once.
 */
const node = (id: string, operation: string, options: object) => ({ id, operation, options });
const graph = {
  nodes: [
    node('make', 'item.create', { collection: 'ticks', data: { title: '{{ $trigger.scheduledFor }}' } }),
    node('note', 'log', { message: 'fired {{ $trigger.scheduledFor }}' }),
  ],
  edges: [{ from: 'make', to: 'note', on: 'resolve' }],
};
const servers: ServerProcess[] = [];
afterAll(async () => {
  for (const s of servers) await kill(s);
});

async function scheduleFlow(call: Call): Promise<{ flowId: string; firing: string }> {
  expect((await call('POST', '/api/v1/collections', { name: 'ticks' })).status).toBe(201);
  expect((await call('POST', '/api/v1/fields/ticks', { field: 'title', type: 'string' })).status).toBe(201);
  const triggerOptions = { cron: '* * * * *' };
  const flow = await call('POST', '/api/v1/flows', {
    name: 'every minute',
    trigger: 'schedule',
    triggerOptions,
    status: 'active',
    runAs: 'editor',
    graph,
  });
  expect(flow.status, JSON.stringify(flow.body)).toBe(201);
  const { id, nextRunAt } = flow.body.data as { id: string; nextRunAt: string };
  expect(nextRunAt).not.toBeNull();
  return { flowId: id, firing: nextRunAt };
}
const runsFor = async (call: Call, flowId: string, firing: string) =>
  (await runsOf(call, flowId)).filter((r) => (r.input as { scheduledFor: string }).scheduledFor === firing);
const itemsFor = async (call: Call, firing: string) => {
  const res = await call('GET', `/api/v1/items/ticks?limit=10&filter[title][_eq]=${encodeURIComponent(firing)}`);
  return (res.body.data as unknown[]).length;
};
/** The firing ran once, to completion, with each step once. */
async function firedOnce(call: Call, flowId: string, firing: string) {
  const [run] = await eventually('the firing run ended', 120_000, async () => {
    const runs = await runsFor(call, flowId, firing);
    return runs.length && runs.every((r) => r.status === 'succeeded' || r.status === 'failed') ? runs : null;
  });
  const runs = await runsFor(call, flowId, firing);
  expect(runs).toHaveLength(1);
  expect(run!.status).toBe('succeeded');
  expect(run!.steps.map((s) => `${s.nodeId}:${s.status}`)).toEqual(['make:succeeded', 'note:succeeded']);
  expect(await itemsFor(call, firing)).toBe(1);
}
const passed = (firing: string) =>
  eventually('the firing time', 90_000, async () => (Date.now() > Date.parse(firing) + 200 ? true : null));

describe('SIGKILL around a schedule tick', () => {
  const store = processStore('flowtick');
  const env = () => ({ ...store.env(), ...adminEnv, SVC_FLOW_INTERVAL_MS: '50' });
  afterAll(() => store.drop());

  it('runs the missed firing once after a restart, even killed again as the run starts', async () => {
    await store.create();
    const first = await startServer(env());
    servers.push(first);
    const { flowId, firing } = await scheduleFlow(await flowClient(first));
    await kill(first);
    await passed(firing);

    // Down when the firing came: the restart's first tick starts its run; kill as soon as the run shows.
    const second = await startServer(env());
    servers.push(second);
    const call2 = await flowClient(second);
    await eventually('the firing run started', 60_000, async () =>
      (await runsFor(call2, flowId, firing)).length ? true : null,
    );
    await kill(second);

    const third = await startServer(env());
    servers.push(third);
    await firedOnce(await flowClient(third), flowId, firing);
  }, 300_000);
});

describe.skipIf(!process.env.TEST_DATABASE_URL)('two service processes on one PostgreSQL', () => {
  const store = processStore('flowtwo');
  const env = () => ({ ...store.env(), ...adminEnv, SVC_FLOW_INTERVAL_MS: '50' });
  afterAll(() => store.drop());

  it('start a schedule firing once between them', async () => {
    await store.create();
    const a = await startServer(env());
    servers.push(a);
    const b = await startServer(env());
    servers.push(b);
    const { flowId, firing } = await scheduleFlow(await flowClient(a));
    await passed(firing);
    await firedOnce(await flowClient(b), flowId, firing);
    await firedOnce(await flowClient(a), flowId, firing);
  }, 300_000);
});
