import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../kernel/clock.ts';
import { createTestApp, type TestApp } from '../../../test/setup/app.ts';
import { createUser } from '../../../test/setup/users.ts';
import { runDueFlows } from './runs/flow-run.worker.ts';

const clock = new ManualClock(new Date('2026-04-01T08:00:00Z'));
let t: TestApp;
let admin: string;
let editor: string;
let otherAdmin: string;
let server: http.Server;
let base: string;
const answers: number[] = [];
const received: { method: string; url: string; body: string }[] = [];

beforeAll(async () => {
  server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      received.push({ method: req.method!, url: req.url!, body });
      res.writeHead(answers.shift() ?? 200, { 'content-type': 'application/json' });
      // A body the log cannot hold: a NUL character inside a JSON string.
      res.end(req.url === '/nul' ? '{"x":"a\\u0000b"}' : JSON.stringify({ ok: true }));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  t = await createTestApp({ clock, env: { SVC_FLOW_ALLOW_PRIVATE: 'true' } });
  admin = await t.setup();
  expect((await call('POST', '/api/v1/sites', { id: 'other', name: 'Other' })).statusCode).toBe(201);
  editor = await createUser(t, 'editor@example.com', 'Long-enough-pass-1!', { main: 'editor' });
  otherAdmin = await createUser(t, 'otheradmin@example.com', 'Long-enough-pass-1!', { other: 'admin' });
  await call('POST', '/api/v1/collections', { name: 'posts' });
  await call('POST', '/api/v1/fields/posts', { field: 'title', type: 'string' });
  await call('POST', '/api/v1/items/posts', { id: 'p1', title: 'Hello' });
});
afterAll(async () => {
  await t.close();
  await new Promise((r) => server.close(r));
});

type Method = 'GET' | 'POST' | 'PATCH' | 'DELETE';
const call = (method: Method, url: string, payload?: unknown, opts: { as?: string | null; site?: string } = {}) =>
  t.call({
    method,
    url,
    ...(opts.as === null ? {} : { as: opts.as ?? admin }),
    site: opts.site ?? 'main',
    ...(payload === undefined ? {} : { payload: payload as object }),
  });
const node = (id: string, operation: string, options: object) => ({ id, operation, options });
const edge = (from: string, to: string, on = 'resolve') => ({ from, to, on });
const activeFlow = async (graph: object, runAs = 'editor') => {
  const res = await call('POST', '/api/v1/flows', { name: 'f', trigger: 'manual', status: 'active', runAs, graph });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().data.id as string;
};
const start = async (flowId: string, input: unknown = {}) => {
  const res = await call('POST', `/api/v1/flows/${flowId}/run`, input);
  expect(res.statusCode, res.body).toBe(202);
  return res.json().data as { id: string; status: string };
};
const runOf = async (flowId: string, runId: string) => {
  const res = await call('GET', `/api/v1/flows/${flowId}/runs/${encodeURIComponent(runId)}`);
  expect(res.statusCode, res.body).toBe(200);
  return res.json().data;
};

describe('POST /api/v1/flows/:id/run', () => {
  it('runs condition → transform → item.update as the runAs role, every step recorded with its output', async () => {
    const flowId = await activeFlow({
      nodes: [
        node('has', 'condition', { filter: { '$trigger.title': { _nnull: true } } }),
        node('shout', 'transform', { template: { title: '{{ $trigger.title }}!' } }),
        node('save', 'item.update', {
          collection: 'posts',
          id: '{{ $trigger.id }}',
          data: { title: '{{ shout.title }}' },
        }),
      ],
      edges: [edge('has', 'shout'), edge('shout', 'save')],
    });
    const run = await start(flowId, { id: 'p1', title: 'Hello' });
    expect(run.status).toBe('running');
    await runDueFlows(t.deps);

    const done = await runOf(flowId, run.id);
    expect(done).toMatchObject({
      status: 'succeeded',
      trigger: 'manual',
      input: { id: 'p1', title: 'Hello' },
      error: null,
    });
    expect(done.steps.map((s: { nodeId: string; status: string }) => [s.nodeId, s.status])).toEqual([
      ['has', 'succeeded'],
      ['shout', 'succeeded'],
      ['save', 'succeeded'],
    ]);
    expect(done.steps[1].output).toEqual({ title: 'Hello!' });
    expect(done.steps[2].input).toMatchObject({ collection: 'posts', id: 'p1', data: { title: 'Hello!' } });
    expect(done.steps[2].output).toMatchObject({ id: 'p1', title: 'Hello!', updated_by: flowId });
    const item = await call('GET', '/api/v1/items/posts/p1');
    expect(item.json().data.title).toBe('Hello!');
    const list = await call('GET', `/api/v1/flows/${flowId}/runs?status=succeeded`);
    expect(list.json()).toMatchObject({ data: [{ id: run.id }], meta: { total: 1, page: 1, pageSize: 25 } });
  });

  it('leaves a failed step by its reject edge, and fails the run when there is none', async () => {
    const caught = await activeFlow({
      nodes: [
        node('boom', 'throw', { message: 'no {{ $trigger.x }}' }),
        node('note', 'log', { message: '{{ $last.error.message }}' }),
      ],
      edges: [edge('boom', 'note', 'reject')],
    });
    const a = await start(caught, { x: 'way' });
    const uncaught = await activeFlow({ nodes: [node('boom', 'throw', { message: 'stop' })], edges: [] });
    const b = await start(uncaught);
    await runDueFlows(t.deps);

    const ra = await runOf(caught, a.id);
    expect(ra.status).toBe('succeeded');
    expect(ra.steps[0]).toMatchObject({
      nodeId: 'boom',
      status: 'failed',
      edge: 'reject',
      error: { code: 'FLOW_THROW', message: 'no way' },
    });
    expect(ra.steps[1]).toMatchObject({ nodeId: 'note', output: { message: 'no way' } });
    const rb = await runOf(uncaught, b.id);
    expect(rb).toMatchObject({ status: 'failed', failedNode: 'boom', error: { code: 'FLOW_THROW', message: 'stop' } });
    const failed = await call('GET', `/api/v1/flows/${uncaught}/runs?status=failed`);
    expect(failed.json().data.map((r: { id: string }) => r.id)).toEqual([b.id]);
  });

  it('never acts beyond its runAs role: a viewer flow cannot update an item (PERMISSION_DENIED recorded)', async () => {
    const flowId = await activeFlow(
      { nodes: [node('save', 'item.update', { collection: 'posts', id: 'p1', data: { title: 'hacked' } })], edges: [] },
      'viewer',
    );
    const run = await start(flowId);
    await runDueFlows(t.deps);
    const done = await runOf(flowId, run.id);
    expect(done).toMatchObject({ status: 'failed', error: { code: 'PERMISSION_DENIED' } });
    expect(done.steps).toHaveLength(1);
    expect((await call('GET', '/api/v1/items/posts/p1')).json().data.title).not.toBe('hacked');
  });

  it('resumes after a crash from the last recorded step: a completed step never runs again', async () => {
    const flowId = await activeFlow({
      nodes: [
        node('make', 'item.create', { collection: 'posts', data: { id: 'made-{{ $trigger.n }}', title: 'new' } }),
        node('done', 'log', { message: 'made {{ make.id }}' }),
      ],
      edges: [edge('make', 'done')],
    });
    const run = await start(flowId, { n: 1 });
    // The worker stops after one step, as a process killed before it recorded the next.
    await runDueFlows(t.deps, { maxActions: 1 });
    expect((await runOf(flowId, run.id)).steps.map((s: { nodeId: string }) => s.nodeId)).toEqual(['make']);
    await t.restart({ SVC_FLOW_ALLOW_PRIVATE: 'true' });
    await runDueFlows(t.deps);
    const done = await runOf(flowId, run.id);
    expect(done.status).toBe('succeeded');
    expect(done.steps.map((s: { nodeId: string }) => s.nodeId)).toEqual(['make', 'done']);
    expect(done.steps[1].output).toEqual({ level: 'info', message: 'made made-1' });
    const list = await call('GET', '/api/v1/items/posts?filter[id][_starts_with]=made-');
    expect(list.json().data.map((i: { id: string }) => i.id)).toEqual(['made-1']);
  });

  it('sleeps durably: the run waits in the log until the clock passes the timer', async () => {
    const flowId = await activeFlow({
      nodes: [node('nap', 'sleep', { ms: 3_600_000 }), node('after', 'log', { message: 'awake' })],
      edges: [edge('nap', 'after')],
    });
    const run = await start(flowId);
    await runDueFlows(t.deps);
    expect((await runOf(flowId, run.id)).status).toBe('sleeping');
    clock.advance(3_599_000);
    await runDueFlows(t.deps);
    expect((await runOf(flowId, run.id)).status).toBe('sleeping');
    clock.advance(1_000);
    await runDueFlows(t.deps);
    const done = await runOf(flowId, run.id);
    expect(done.status).toBe('succeeded');
    expect(done.steps.map((s: { nodeId: string }) => s.nodeId)).toEqual(['nap', 'after']);
  });

  it('retries a request that failed with 5xx after its backoff, recording each try', async () => {
    answers.push(503);
    const flowId = await activeFlow({
      nodes: [node('call', 'request', { method: 'POST', url: `${base}/hook`, body: { n: '{{ $trigger.n }}' } })],
      edges: [],
    });
    const run = await start(flowId, { n: 7 });
    await runDueFlows(t.deps);
    const first = await runOf(flowId, run.id);
    expect(first.status).toBe('running');
    expect(first.steps[0]).toMatchObject({ status: 'retrying', attempt: 1, error: { code: 'REQUEST_FAILED' } });
    await runDueFlows(t.deps);
    expect((await runOf(flowId, run.id)).steps).toHaveLength(1);
    clock.advance(1_000);
    await runDueFlows(t.deps);
    const done = await runOf(flowId, run.id);
    expect(done.status).toBe('succeeded');
    expect(done.steps[1]).toMatchObject({
      status: 'succeeded',
      attempt: 2,
      output: { status: 200, body: { ok: true } },
    });
    expect(received.filter((r) => r.url === '/hook').map((r) => JSON.parse(r.body))).toEqual([{ n: 7 }, { n: 7 }]);
  });

  it('fails a step whose output the log cannot hold, for good, instead of sending it again every round', async () => {
    const flowId = await activeFlow({
      nodes: [node('call', 'request', { method: 'POST', url: `${base}/nul` })],
      edges: [],
    });
    const run = await start(flowId);
    await runDueFlows(t.deps);
    await runDueFlows(t.deps);
    const done = await runOf(flowId, run.id);
    expect(done).toMatchObject({ status: 'failed' });
    expect(done.steps).toEqual([
      expect.objectContaining({ error: expect.objectContaining({ code: 'OUTPUT_UNSTORABLE' }) }),
    ]);
    expect(received.filter((r) => r.url === '/nul')).toHaveLength(1);
  });

  it('starts no flow that runs as a role above its own (trigger)', async () => {
    const adminFlow = await activeFlow({ nodes: [node('note', 'log', { message: 'as admin' })], edges: [] }, 'admin');
    const flowId = await activeFlow(
      { nodes: [node('go', 'trigger', { flow: adminFlow, payload: { x: 1 } })], edges: [] },
      'editor',
    );
    const run = await start(flowId);
    await runDueFlows(t.deps);
    const done = await runOf(flowId, run.id);
    expect(done).toMatchObject({ status: 'failed', error: { code: 'PERMISSION_DENIED' } });
    const children = await call('GET', `/api/v1/flows/${adminFlow}/runs`);
    expect(children.json().data).toEqual([]);
  });

  it('reads items without their personal values (a run history is out of erasure’s reach)', async () => {
    await call('POST', '/api/v1/collections', { name: 'people', subject: { from: 'item' } });
    await call('POST', '/api/v1/fields/people', { field: 'email', type: 'string', personal: true });
    await call('POST', '/api/v1/fields/people', { field: 'city', type: 'string' });
    await call('POST', '/api/v1/items/people', { id: 'pp1', email: 'someone@flows.test', city: 'Leeds' });
    const flowId = await activeFlow({
      nodes: [node('read', 'item.read', { collection: 'people', id: 'pp1' })],
      edges: [],
    });
    const run = await start(flowId);
    await runDueFlows(t.deps);
    const done = await runOf(flowId, run.id);
    expect(done.status).toBe('succeeded');
    expect(JSON.stringify(done.steps)).toContain('Leeds');
    expect(JSON.stringify(done.steps)).not.toContain('someone@flows.test');
  });

  it('refuses a draft flow (409), and keeps each site to its own flows and runs', async () => {
    const draft = await call('POST', '/api/v1/flows', { name: 'd', trigger: 'manual' });
    const id = draft.json().data.id as string;
    const res = await call('POST', `/api/v1/flows/${id}/run`, {});
    expect(res.statusCode).toBe(409);
    expect(res.json().errors[0]).toMatchObject({ code: 'CONFLICT', extensions: { reason: 'flow_not_active' } });
    const flowId = await activeFlow({ nodes: [node('a', 'log', { message: 'x' })], edges: [] });
    const run = await start(flowId);
    for (const url of [
      `/api/v1/flows/${flowId}/run`,
      `/api/v1/flows/${flowId}/runs`,
      `/api/v1/flows/${flowId}/runs/${run.id}`,
    ]) {
      const method = url.endsWith('/run') ? 'POST' : 'GET';
      expect(
        (await call(method, url, method === 'POST' ? {} : undefined, { as: otherAdmin, site: 'other' })).statusCode,
      ).toBe(404);
      expect((await call(method, url, method === 'POST' ? {} : undefined, { as: null })).statusCode).toBe(401);
      expect((await call(method, url, method === 'POST' ? {} : undefined, { as: editor })).statusCode).toBe(403);
    }
    expect((await call('GET', `/api/v1/flows/${flowId}/runs/nope`)).statusCode).toBe(404);
  });
});

describe('POST /api/v1/flows/:id/runs/:runId/retry', () => {
  it('re-runs a failed run from the failed step with the recorded outputs of the steps before it', async () => {
    const make = node('make', 'transform', { template: { n: '{{ $trigger.n }}' } });
    const graph = (last: object) => ({ nodes: [make, last], edges: [edge('make', 'last')] });
    const flowId = await activeFlow(graph(node('last', 'throw', { message: 'not yet' })));
    const failed = await start(flowId, { n: 5 });
    await runDueFlows(t.deps);
    expect((await runOf(flowId, failed.id)).status).toBe('failed');
    const running = await start(flowId, { n: 6 });
    const early = await call('POST', `/api/v1/flows/${flowId}/runs/${running.id}/retry`, {});
    expect(early.statusCode).toBe(400);
    expect(early.json().errors[0].extensions.reason).toBe('run_not_ended');
    await runDueFlows(t.deps);

    const fixed = await call('PATCH', `/api/v1/flows/${flowId}`, {
      graph: graph(node('last', 'log', { message: 'n={{ make.n }}' })),
    });
    expect(fixed.statusCode, fixed.body).toBe(200);
    const res = await call('POST', `/api/v1/flows/${flowId}/runs/${failed.id}/retry`, {});
    expect(res.statusCode, res.body).toBe(202);
    expect(res.json().data).toMatchObject({ trigger: 'retry', retryOf: failed.id, input: { n: 5 } });
    await runDueFlows(t.deps);
    const again = await runOf(flowId, res.json().data.id);
    expect(again.status).toBe('succeeded');
    expect(again.steps.map((s: { nodeId: string }) => s.nodeId)).toEqual(['last']);
    expect(again.steps[0].output).toEqual({ level: 'info', message: 'n=5' });

    const all = await call('POST', `/api/v1/flows/${flowId}/runs/${failed.id}/retry`, { fromStep: 'make' });
    await runDueFlows(t.deps);
    expect((await runOf(flowId, all.json().data.id)).steps.map((s: { nodeId: string }) => s.nodeId)).toEqual([
      'make',
      'last',
    ]);
    const unknown = await call('POST', `/api/v1/flows/${flowId}/runs/${failed.id}/retry`, { fromStep: 'ghost' });
    expect(unknown.statusCode).toBe(400);
    expect(unknown.json().errors[0]).toMatchObject({ code: 'VALIDATION_FAILED', path: ['fromStep'] });
    const url = `/api/v1/flows/${flowId}/runs/${failed.id}/retry`;
    expect((await call('POST', url, {}, { as: otherAdmin, site: 'other' })).statusCode).toBe(404);
    expect((await call('POST', url, {}, { as: null })).statusCode).toBe(401);
    expect((await call('POST', url, {}, { as: editor })).statusCode).toBe(403);
  });
});
