import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../kernel/clock.ts';
import { createTestApp, type TestApp } from '../../../test/setup/app.ts';
import { runDueFlows } from './runs/flow-run.worker.ts';
import { FLOW_EVENT_TRIGGER } from './runs/flow-event.reactor.ts';

const clock = new ManualClock(new Date('2026-04-01T08:00:00Z'));
const budgetEnv = { SVC_FLOW_BUDGET_RUNS: '10', SVC_FLOW_BUDGET_STEPS: '1000', SVC_FLOW_BUDGET_BYTES: '1000000' };
let t: TestApp;
let admin: string;

beforeAll(async () => {
  t = await createTestApp({ clock, env: budgetEnv });
  admin = await t.setup();
  expect((await call('POST', '/api/v1/sites', { id: 'other', name: 'Other' })).statusCode).toBe(201);
  await call('POST', '/api/v1/collections', { name: 'posts' });
  await call('POST', '/api/v1/fields/posts', { field: 'title', type: 'string' });
});
afterAll(() => t.close());

type Method = 'GET' | 'POST' | 'PATCH';
const call = (method: Method, url: string, payload?: unknown, site = 'main') =>
  t.call({ method, url, as: admin, site, ...(payload === undefined ? {} : { payload: payload as object }) });
const node = (id: string, operation: string, options: object) => ({ id, operation, options });
const chainOf = (nodes: { id: string }[]) => ({
  nodes,
  edges: nodes.slice(1).map((n, i) => ({ from: nodes[i]!.id, to: n.id, on: 'resolve' })),
});
/** Saves a flow whose graph may name the flow itself (`self`). */
async function flowOf(body: object, graph: (self: string) => object, site = 'main'): Promise<string> {
  const res = await call('POST', '/api/v1/flows', { name: 'f', runAs: 'admin', ...body }, site);
  expect(res.statusCode, res.body).toBe(201);
  const id = res.json().data.id as string;
  const saved = await call('PATCH', `/api/v1/flows/${id}`, { status: 'active', graph: graph(id) }, site);
  expect(saved.statusCode, saved.body).toBe(200);
  return id;
}
const start = async (flowId: string, site = 'main') => {
  const res = await call('POST', `/api/v1/flows/${flowId}/run`, {}, site);
  expect(res.statusCode, res.body).toBe(202);
  return res.json().data.id as string;
};
type Run = { id: string; status: string; error: { code: string; extensions?: object } | null; steps: Step[] };
type Step = { nodeId: string; status: string; error: { code: string; extensions?: Record<string, unknown> } | null };
/** Every run of a flow with its steps (the tests' trees stay under one page of 200). */
const runsOf = async (flowId: string, site = 'main'): Promise<Run[]> => {
  const res = await call('GET', `/api/v1/flows/${flowId}/runs?limit=200`, undefined, site);
  expect(res.statusCode, res.body).toBe(200);
  const all: Run[] = [];
  for (const r of res.json().data as { id: string }[])
    all.push(
      (await call('GET', `/api/v1/flows/${flowId}/runs/${encodeURIComponent(r.id)}`, undefined, site)).json().data,
    );
  return all;
};
/** Rounds of the worker (and of the event trigger) until nothing is due; bounded, so a runaway fails the test. */
async function settle(rounds = 40) {
  for (let i = 0; i < rounds; i++) {
    await t.deps.drainReactors(FLOW_EVENT_TRIGGER);
    if ((await runDueFlows(t.deps)) === 0) return;
  }
}
const budgetErrors = (runs: Run[]) =>
  runs.flatMap((r) => r.steps.filter((s) => s.error?.code === 'BUDGET_EXCEEDED').map((s) => s.error!));

describe('a root run and its descendants share one budget', () => {
  it('a graph of 3 trigger nodes that start their own flow ends at the runs budget, and the history says why', async () => {
    const flowId = await flowOf({ trigger: 'manual' }, (self) =>
      chainOf(['t1', 't2', 't3'].map((id) => node(id, 'trigger', { flow: self, payload: {} }))),
    );
    const root = await start(flowId);
    await settle();
    const runs = await runsOf(flowId);
    // The root and the 10 runs its budget allows (not 364: (3^6 - 1) / 2 with only the depth as a bound).
    expect(runs).toHaveLength(11);
    const refusals = budgetErrors(runs);
    expect(refusals.length).toBeGreaterThan(0);
    for (const e of refusals) expect(e.extensions).toMatchObject({ budget: 'runs', limit: 10, rootRunId: root });
    const failed = runs.filter((r) => r.status === 'failed');
    expect(failed.length).toBeGreaterThan(0);
    for (const r of failed) expect(r.error?.code).toBe('BUDGET_EXCEEDED');
  });

  it('an event flow whose item writes start it again stops at the budget of the run that began it', async () => {
    const flowId = await flowOf(
      { trigger: 'event', triggerOptions: { events: ['items.create'], collections: ['posts'] } },
      () =>
        chainOf([
          node('one', 'item.create', { collection: 'posts', data: { title: 'echo' } }),
          node('two', 'item.create', { collection: 'posts', data: { title: 'echo' } }),
        ]),
    );
    expect((await call('POST', '/api/v1/items/posts', { id: 'seed', title: 'seed' })).statusCode).toBe(201);
    await settle();
    const runs = await runsOf(flowId);
    const ran = runs.filter((r) => r.steps.length > 0);
    // The run the person's write started, and the 10 its writes were allowed to start (not 63 down to depth 5).
    expect(ran).toHaveLength(11);
    const refused = runs.filter((r) => r.steps.length === 0);
    expect(refused.length).toBeGreaterThan(0);
    for (const r of refused) {
      expect(r.status).toBe('failed');
      expect(r.error).toMatchObject({ code: 'BUDGET_EXCEEDED', extensions: { budget: 'runs', limit: 10 } });
    }
  });

  it('caps the runs one run starts (breadth) and the bytes of output a tree records', async () => {
    await t.restart({ ...budgetEnv, SVC_FLOW_BREADTH: '2', SVC_FLOW_BUDGET_BYTES: '1000' });
    const leaf = await flowOf({ trigger: 'manual' }, () => ({
      nodes: [node('a', 'log', { message: 'x' })],
      edges: [],
    }));
    const wide = await flowOf({ trigger: 'manual' }, () =>
      chainOf(['t1', 't2', 't3'].map((id) => node(id, 'trigger', { flow: leaf, payload: {} }))),
    );
    await start(wide);
    const big = 'x'.repeat(300);
    const heavy = await flowOf({ trigger: 'manual' }, () =>
      chainOf(['a', 'b', 'c', 'd', 'e'].map((id) => node(id, 'transform', { template: { big } }))),
    );
    const heavyRun = await start(heavy);
    await settle();
    const [w] = await runsOf(wide);
    expect(w!.steps.map((s) => [s.nodeId, s.status])).toEqual([
      ['t1', 'succeeded'],
      ['t2', 'succeeded'],
      ['t3', 'failed'],
    ]);
    expect(w!.steps[2]!.error).toMatchObject({ code: 'BUDGET_EXCEEDED', extensions: { budget: 'breadth', limit: 2 } });
    expect(await runsOf(leaf)).toHaveLength(2);
    const [h] = await runsOf(heavy);
    expect(h!.id).toBe(heavyRun);
    // Each output is about 300 bytes: the fifth step would start past 1 000.
    expect(h!.steps.map((s) => s.nodeId)).toEqual(['a', 'b', 'c', 'd']);
    expect(h).toMatchObject({ status: 'failed', error: { code: 'BUDGET_EXCEEDED' } });
    expect(h!.error!.extensions).toMatchObject({ budget: 'bytes', limit: 1000, rootRunId: heavyRun });
  });

  it('ends every run of a tree once the tree has taken its steps budget', async () => {
    // One run at a time: the check before each step then sees every step the tree took before it.
    await t.restart({
      ...budgetEnv,
      SVC_FLOW_BUDGET_RUNS: '100',
      SVC_FLOW_BUDGET_STEPS: '12',
      SVC_FLOW_SITE_CONCURRENCY: '1',
    });
    const flowId = await flowOf({ trigger: 'manual' }, (self) =>
      chainOf(['t1', 't2', 't3'].map((id) => node(id, 'trigger', { flow: self, payload: {} }))),
    );
    await start(flowId);
    await settle();
    const runs = await runsOf(flowId);
    const steps = runs.reduce((n, r) => n + r.steps.length, 0);
    expect(steps).toBe(12);
    const ended = runs.filter((r) => r.error?.code === 'BUDGET_EXCEEDED');
    expect(ended.length).toBeGreaterThan(0);
    for (const r of ended) expect(r.error!.extensions).toMatchObject({ budget: 'steps', limit: 12 });
    expect(runs.every((r) => r.status === 'failed' || r.status === 'succeeded')).toBe(true);
  });
});

describe('the flow worker', () => {
  it("takes another site's run in the same round while one site has more due runs than a round holds", async () => {
    await t.restart(budgetEnv);
    const busy = await flowOf({ trigger: 'manual' }, () => ({
      nodes: [node('a', 'log', { message: 'x' })],
      edges: [],
    }));
    const quiet = await flowOf(
      { trigger: 'manual' },
      () => ({ nodes: [node('a', 'log', { message: 'x' })], edges: [] }),
      'other',
    );
    for (let i = 0; i < 210; i++) await start(busy);
    clock.advance(1000);
    const late = await start(quiet, 'other');
    await runDueFlows(t.deps);
    const done = await call('GET', `/api/v1/flows/${quiet}/runs/${encodeURIComponent(late)}`, undefined, 'other');
    expect(done.json().data.status).toBe('succeeded');
    // The round held at most SVC_FLOW_SITE_ROUND (50) runs of the busy site; the rest wait for the next rounds.
    const list = await call('GET', `/api/v1/flows/${busy}/runs?status=succeeded&limit=1`);
    expect(list.json().meta.total).toBe(50);
    await settle();
    const after = await call('GET', `/api/v1/flows/${busy}/runs?status=succeeded&limit=1`);
    expect(after.json().meta.total).toBe(210);
  }, 180_000);
});
