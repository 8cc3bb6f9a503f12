import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../kernel/clock.ts';
import { createTestApp, type TestApp } from '../../../test/setup/app.ts';
import { runDueFlows } from './runs/flow-run.worker.ts';
import { FLOW_EVENT_TRIGGER } from './runs/flow-event.reactor.ts';

// The flows' `request` steps call this very service over a loopback socket (hence SVC_FLOW_ALLOW_PRIVATE).
const clock = new ManualClock(new Date('2026-04-01T08:00:00Z'));
const treeEnv = { SVC_FLOW_ALLOW_PRIVATE: 'true', SVC_FLOW_BUDGET_RUNS: '2', SVC_FLOW_BREADTH: '2' };
let t: TestApp;
let admin: string;
let base: string;
let echo: http.Server;
let echoBase: string;
const captured: http.IncomingHttpHeaders[] = [];

/** Listens on a loopback port (again after a restart): the address the flows call. */
async function listen() {
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
}

beforeAll(async () => {
  echo = http.createServer((req, res) => {
    captured.push(req.headers);
    req.resume();
    req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}'));
  });
  await new Promise<void>((r) => echo.listen(0, '127.0.0.1', r));
  echoBase = `http://127.0.0.1:${(echo.address() as AddressInfo).port}`;
  t = await createTestApp({ clock, env: treeEnv });
  admin = await t.setup();
  expect((await call('POST', '/api/v1/sites', { id: 'other', name: 'Other' })).statusCode).toBe(201);
  for (const site of ['main', 'other']) {
    await call('POST', '/api/v1/collections', { name: 'posts' }, site);
    await call('POST', '/api/v1/fields/posts', { field: 'title', type: 'string' }, site);
  }
  await listen();
});
afterAll(async () => {
  await t.close();
  await new Promise((r) => echo.close(r));
});

type Method = 'GET' | 'POST' | 'PATCH';
const call = (method: Method, url: string, payload?: unknown, site = 'main') =>
  t.call({ method, url, as: admin, site, ...(payload === undefined ? {} : { payload: payload as object }) });
const node = (id: string, operation: string, options: object) => ({ id, operation, options });
const chainOf = (nodes: { id: string }[]) => ({
  nodes,
  edges: nodes.slice(1).map((n, i) => ({ from: nodes[i]!.id, to: n.id, on: 'resolve' })),
});
const logGraph = () => ({ nodes: [node('a', 'log', { message: 'x' })], edges: [] });
/** Saves an active flow whose graph may name the flow itself (`self`). */
async function flowOf(body: object, graph: (self: string) => object, site = 'main'): Promise<string> {
  const res = await call('POST', '/api/v1/flows', { name: 'f', runAs: 'admin', ...body }, site);
  expect(res.statusCode, res.body).toBe(201);
  const id = res.json().data.id as string;
  const saved = await call('PATCH', `/api/v1/flows/${id}`, { status: 'active', graph: graph(id) }, site);
  expect(saved.statusCode, saved.body).toBe(200);
  return id;
}
const tokenOf = async (flowId: string, site = 'main') => {
  const res = await call('POST', `/api/v1/flows/${flowId}/token`, undefined, site);
  expect(res.statusCode, res.body).toBe(200);
  return res.json().data.token as string;
};
/** A webhook call as an outside caller makes it (no session), with extra headers. */
const trigger = (flowId: string, token: string, headers: Record<string, string> = {}, site = 'main') =>
  t.app.inject({
    method: 'POST',
    url: `/api/v1/flows/${flowId}/trigger`,
    headers: { 'x-flow-token': token, 'x-svc-site': site, ...headers },
    payload: {},
  });
type Run = {
  id: string;
  status: string;
  trigger: string;
  depth: number;
  input: { headers?: Record<string, unknown> } | null;
  error: { code: string; extensions?: Record<string, unknown> } | null;
  steps: { nodeId: string; status: string; error: { code: string } | null }[];
};
const runOf = async (flowId: string, runId: string, site = 'main'): Promise<Run> => {
  const res = await call('GET', `/api/v1/flows/${flowId}/runs/${encodeURIComponent(runId)}`, undefined, site);
  expect(res.statusCode, res.body).toBe(200);
  return res.json().data;
};
/** Every run of a flow with its steps (the trees here stay far under one page). */
const runsOf = async (flowId: string, site = 'main'): Promise<Run[]> => {
  const res = await call('GET', `/api/v1/flows/${flowId}/runs?limit=200`, undefined, site);
  expect(res.statusCode, res.body).toBe(200);
  const all: Run[] = [];
  for (const r of res.json().data as { id: string }[]) all.push(await runOf(flowId, r.id, site));
  return all;
};
/** Rounds of the worker and the event trigger until nothing is due; bounded, so a runaway fails the test. */
async function settle(rounds = 6) {
  for (let i = 0; i < rounds; i++) {
    await t.deps.drainReactors(FLOW_EVENT_TRIGGER);
    if ((await runDueFlows(t.deps)) === 0) return;
  }
}
const TREE = 'x-svc-flow-tree';

describe('a flow that calls the service over HTTP stays in its root run tree', () => {
  it('a webhook flow whose request steps trigger itself ends within the budget of the first run', async () => {
    const token = { value: '' };
    const flowId = await flowOf({ trigger: 'webhook' }, (self) =>
      chainOf(
        ['r1', 'r2', 'r3'].map((id) =>
          node(id, 'request', {
            method: 'POST',
            url: `${base}/api/v1/flows/${self}/trigger`,
            headers: { 'x-flow-token': '{{ $trigger.body.token }}', 'x-svc-site': 'main' },
            body: { token: '{{ $trigger.body.token }}' },
          }),
        ),
      ),
    );
    token.value = await tokenOf(flowId);
    const first = await t.app.inject({
      method: 'POST',
      url: `/api/v1/flows/${flowId}/trigger`,
      headers: { 'x-flow-token': token.value, 'x-svc-site': 'main' },
      payload: { token: token.value },
    });
    expect(first.statusCode, first.body).toBe(202);
    const root = first.json().data.runId as string;
    await settle();
    const runs = await runsOf(flowId);
    // The first run and the 2 runs its budget allows; before, every call began a tree of its own (4, 13, 40, … runs).
    const ran = runs.filter((r) => r.steps.length > 0);
    expect(ran).toHaveLength(3);
    expect(ran.map((r) => r.depth).sort()).toEqual([0, 1, 1]);
    const refused = runs.filter((r) => r.steps.length === 0);
    expect(refused.length).toBeGreaterThan(0);
    for (const r of refused)
      expect(r).toMatchObject({
        status: 'failed',
        error: { code: 'BUDGET_EXCEEDED', extensions: { budget: 'runs', limit: 2, rootRunId: root } },
      });
    expect(runs.every((r) => r.status === 'succeeded' || r.status === 'failed')).toBe(true);
    // The header is the service's own: it is no part of a run's recorded input.
    for (const r of runs) expect(Object.keys(r.input?.headers ?? {})).not.toContain(TREE);
  }, 120_000);

  it('a manual flow whose request step runs itself with an API key ends within the budget of the first run', async () => {
    const key = await call('POST', '/api/v1/api-keys', { name: 'runner', roleKey: 'admin' });
    expect(key.statusCode, key.body).toBe(201);
    const apiKey = key.json().data.key as string;
    const flowId = await flowOf({ trigger: 'manual' }, (self) => ({
      nodes: [
        node('again', 'request', {
          method: 'POST',
          url: `${base}/api/v1/flows/${self}/run`,
          headers: { authorization: `Bearer ${apiKey}`, 'x-svc-site': 'main' },
          body: {},
        }),
      ],
      edges: [],
    }));
    const root = (await call('POST', `/api/v1/flows/${flowId}/run`, {})).json().data.id as string;
    await settle();
    const runs = await runsOf(flowId);
    expect(
      runs
        .filter((r) => r.steps.length > 0)
        .map((r) => r.depth)
        .sort(),
    ).toEqual([0, 1, 2]);
    const refused = runs.filter((r) => r.steps.length === 0);
    expect(refused).toHaveLength(1);
    expect(refused[0]!.error).toMatchObject({
      code: 'BUDGET_EXCEEDED',
      extensions: { budget: 'runs', rootRunId: root },
    });
  }, 120_000);

  it("an item write over HTTP with an API key charges the event runs it causes to the writer's root", async () => {
    const key = await call('POST', '/api/v1/api-keys', { name: 'loop', roleKey: 'admin' });
    expect(key.statusCode, key.body).toBe(201);
    const apiKey = key.json().data.key as string;
    const flowId = await flowOf(
      { trigger: 'event', triggerOptions: { events: ['items.create'], collections: ['posts'] } },
      () => ({
        nodes: [
          node('write', 'request', {
            method: 'POST',
            url: `${base}/api/v1/items/posts`,
            headers: { authorization: `Bearer ${apiKey}`, 'x-svc-site': 'main' },
            body: { title: 'echo' },
          }),
        ],
        edges: [],
      }),
    );
    expect((await call('POST', '/api/v1/items/posts', { id: 'seed', title: 'seed' })).statusCode).toBe(201);
    await settle();
    const runs = await runsOf(flowId);
    const ran = runs.filter((r) => r.steps.length > 0);
    // The run the person's write began and the 2 its budget allows: depth 0, 1 and 2, then a refusal.
    expect(ran.map((r) => r.depth).sort()).toEqual([0, 1, 2]);
    const root = ran.find((r) => r.depth === 0)!.id;
    const refused = runs.filter((r) => r.steps.length === 0);
    expect(refused).toHaveLength(1);
    expect(refused[0]).toMatchObject({
      status: 'failed',
      error: { code: 'BUDGET_EXCEEDED', extensions: { budget: 'runs', limit: 2, rootRunId: root } },
    });
    await call('PATCH', `/api/v1/flows/${flowId}`, { status: 'inactive' });
  }, 120_000);

  it('a tampered, forged, expired or foreign header attaches to no tree and gains no budget', async () => {
    const caller = await flowOf({ trigger: 'manual' }, () => ({
      nodes: [node('call', 'request', { method: 'POST', url: `${echoBase}/capture`, body: {} })],
      edges: [],
    }));
    const started = await call('POST', `/api/v1/flows/${caller}/run`, {});
    expect(started.statusCode, started.body).toBe(202);
    captured.length = 0;
    await settle();
    const genuine = captured[0]?.[TREE];
    expect(typeof genuine).toBe('string');
    const hooks = [];
    for (let i = 0; i < 3; i++) {
      const id = await flowOf({ trigger: 'webhook' }, logGraph);
      hooks.push({ id, token: await tokenOf(id) });
    }
    // The genuine header continues the caller's tree: two runs (its budget), then a refusal that says why.
    for (const h of hooks.slice(0, 2)) {
      const res = await trigger(h.id, h.token, { [TREE]: genuine as string });
      expect(res.statusCode, res.body).toBe(202);
      expect((await runOf(h.id, res.json().data.runId)).depth).toBe(1);
    }
    const spent = await trigger(hooks[2]!.id, hooks[2]!.token, { [TREE]: genuine as string });
    expect(spent.statusCode, spent.body).toBe(409);
    expect(spent.json().errors[0]).toMatchObject({ code: 'BUDGET_EXCEEDED', extensions: { budget: 'runs' } });

    const [version, payload, mac] = (genuine as string).split('.');
    const claims = JSON.parse(Buffer.from(payload!, 'base64url').toString()) as Record<string, unknown>;
    const tamper = (change: object) =>
      `${version}.${Buffer.from(JSON.stringify({ ...claims, ...change })).toString('base64url')}.${mac}`;
    const wrong = [
      tamper({ depth: 4 }),
      tamper({ root: 'another-root' }),
      `${version}.${payload}.${'A'.repeat(mac!.length)}`,
      'v1.e30.AAAA',
      'garbage',
      'x'.repeat(5000),
    ];
    for (const header of wrong) {
      const res = await trigger(hooks[2]!.id, hooks[2]!.token, { [TREE]: header });
      expect(res.statusCode, res.body).toBe(202);
      // A root of its own, not a run of the spent tree.
      expect((await runOf(hooks[2]!.id, res.json().data.runId)).depth).toBe(0);
    }
    // Another site's webhook does not take the header of a run of this site.
    const foreign = await flowOf({ trigger: 'webhook' }, logGraph, 'other');
    const abroad = await trigger(foreign, await tokenOf(foreign, 'other'), { [TREE]: genuine as string }, 'other');
    expect(abroad.statusCode, abroad.body).toBe(202);
    expect((await runOf(foreign, abroad.json().data.runId, 'other')).depth).toBe(0);
    // Nor does a header past its lifetime.
    clock.advance(3600_000);
    const late = await trigger(hooks[2]!.id, hooks[2]!.token, { [TREE]: genuine as string });
    expect(late.statusCode, late.body).toBe(202);
    expect((await runOf(hooks[2]!.id, late.json().data.runId)).depth).toBe(0);
    await settle();
  }, 120_000);
});
