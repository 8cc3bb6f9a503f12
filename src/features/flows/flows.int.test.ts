import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../kernel/clock.ts';
import { collect } from '../../kernel/es/event-store.ts';
import { createTestApp, type TestApp } from '../../../test/setup/app.ts';
import { createUser } from '../../../test/setup/users.ts';
import { flowStream } from '../../contracts/flows/flow.events.ts';

const clock = new ManualClock(new Date('2026-03-01T10:00:00Z'));
let t: TestApp;
let admin: string;
let siteAdmin: string;
let editor: string;
let otherAdmin: string;

beforeAll(async () => {
  t = await createTestApp({ clock });
  admin = await t.setup();
  const res = await t.call({
    method: 'POST',
    url: '/api/v1/sites',
    as: admin,
    payload: { id: 'other', name: 'Other' },
  });
  expect(res.statusCode, res.body).toBe(201);
  siteAdmin = await createUser(t, 'siteadmin@example.com', 'Long-enough-pass-1!', { main: 'site_admin' });
  editor = await createUser(t, 'editor@example.com', 'Long-enough-pass-1!', { main: 'editor' });
  otherAdmin = await createUser(t, 'otheradmin@example.com', 'Long-enough-pass-1!', { other: 'admin' });
});
afterAll(() => t.close());

type Method = 'GET' | 'POST' | 'PATCH' | 'DELETE';
const call = (method: Method, url: string, payload?: unknown, opts: { as?: string | undefined; site?: string } = {}) =>
  t.call({
    method,
    url,
    ...('as' in opts ? (opts.as === undefined ? {} : { as: opts.as }) : { as: admin }),
    site: opts.site ?? 'main',
    ...(payload === undefined ? {} : { payload: payload as object }),
  });
const error = (res: { body: string }) =>
  JSON.parse(res.body).errors[0] as { code: string; path: string[]; extensions: Record<string, unknown> };

const node = (id: string, operation = 'log', options: object = { message: 'hi' }) => ({ id, operation, options });
const chain = (...ids: string[]) => ({
  nodes: ids.map((id) => node(id)),
  edges: ids.slice(1).map((to, i) => ({ from: ids[i]!, to, on: 'resolve' })),
});
let n = 0;
const flow = (body: object = {}) => ({ name: `flow-${++n}`, trigger: 'manual', ...body });
const create = async (body: object = {}, as = admin) => {
  const res = await call('POST', '/api/v1/flows', flow(body), { as });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().data as { id: string; name: string; version: number; status: string; nextRunAt: string | null };
};

describe('POST /api/v1/flows', () => {
  it("creates a draft that runs as the caller's role by default", async () => {
    const res = await call('POST', '/api/v1/flows', flow({ name: 'Welcome', description: 'greets' }));
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json().data).toMatchObject({
      name: 'Welcome',
      description: 'greets',
      status: 'draft',
      trigger: 'manual',
      triggerOptions: {},
      graph: { nodes: [], edges: [] },
      runAs: 'admin',
      options: {},
      nextRunAt: null,
      hasToken: false,
      version: 1,
    });
    const again = await call('GET', `/api/v1/flows/${res.json().data.id}`);
    expect(again.json().data).toEqual(res.json().data);
  });

  it('accepts an invalid graph in a draft, and refuses it once active', async () => {
    const graph = { nodes: [node('a', 'nope')], edges: [{ from: 'a', to: 'ghost', on: 'resolve' }] };
    const draft = await create({ graph });
    const res = await call('PATCH', `/api/v1/flows/${draft.id}`, { status: 'active' });
    expect(res.statusCode).toBe(400);
    expect(error(res)).toMatchObject({ code: 'GRAPH_UNKNOWN_OPERATION', extensions: { nodeId: 'a' } });
  });

  it('activates a valid graph', async () => {
    const res = await call('POST', '/api/v1/flows', flow({ status: 'active', graph: chain('a', 'b', 'c') }));
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json().data.status).toBe('active');
  });
});

describe('graph validation of an active flow', () => {
  const refuse = async (graph: object, code: string, nodeId: string | null) => {
    const res = await call('POST', '/api/v1/flows', flow({ status: 'active', graph }));
    expect(res.statusCode, res.body).toBe(400);
    expect(error(res).code).toBe(code);
    expect(error(res).extensions.nodeId).toBe(nodeId);
    return error(res);
  };

  it('GRAPH_NO_ENTRY for an empty graph and for two entry nodes', async () => {
    await refuse({ nodes: [], edges: [] }, 'GRAPH_NO_ENTRY', null);
    await refuse({ nodes: [node('a'), node('b')], edges: [] }, 'GRAPH_NO_ENTRY', 'b');
  });

  it('GRAPH_DANGLING_EDGE names the missing node', async () => {
    const e = await refuse({ nodes: [node('a')], edges: [{ from: 'a', to: 'ghost' }] }, 'GRAPH_DANGLING_EDGE', 'ghost');
    expect(e.path).toEqual(['graph', 'edges', '0', 'to']);
  });

  it('GRAPH_CYCLE for a cycle and for a self-loop, naming a node on it', async () => {
    const cyc = await refuse(
      {
        ...chain('s', 'a', 'b', 'c'),
        edges: [...chain('s', 'a', 'b', 'c').edges, { from: 'c', to: 'a', on: 'reject' }],
      },
      'GRAPH_CYCLE',
      'a',
    );
    expect(cyc.extensions.cycle).toEqual(['a', 'b', 'c']);
    await refuse(
      {
        nodes: [node('s'), node('a')],
        edges: [
          { from: 's', to: 'a' },
          { from: 'a', to: 'a' },
        ],
      },
      'GRAPH_CYCLE',
      'a',
    );
  });

  it('GRAPH_UNKNOWN_OPERATION names the node', async () => {
    await refuse(
      { nodes: [node('a'), node('b', 'item.explode')], edges: [{ from: 'a', to: 'b' }] },
      'GRAPH_UNKNOWN_OPERATION',
      'b',
    );
  });

  it("refuses options that do not fit the operation, with the node's path", async () => {
    const e = await refuse({ nodes: [node('a', 'sleep', { ms: -1 })], edges: [] }, 'VALIDATION_FAILED', 'a');
    expect(e.path).toEqual(['graph', 'nodes', '0', 'options', 'ms']);
    await refuse(
      { nodes: [node('a', 'condition', { filter: { '$last.x': { _like: 1 } } })], edges: [] },
      'VALIDATION_FAILED',
      'a',
    );
  });

  it('refuses a template path to a node that is not in the graph, accepts one to a node that is', async () => {
    const bad = { nodes: [node('a', 'transform', { template: { x: '{{ ghost.y }}' } })], edges: [] };
    const e = await refuse(bad, 'VALIDATION_FAILED', 'a');
    expect(e.extensions).toMatchObject({ reason: 'unknown_node', ref: 'ghost' });
    await refuse({ nodes: [node('a', 'log', { message: '{{ 1 + 1 }}' })], edges: [] }, 'VALIDATION_FAILED', 'a');
    const good = {
      nodes: [
        node('a', 'transform', { template: { x: '{{ $trigger.x }}' } }),
        node('b', 'log', { message: 'got {{ a.x }} {{ $last.x }}' }),
      ],
      edges: [{ from: 'a', to: 'b' }],
    };
    expect((await call('POST', '/api/v1/flows', flow({ status: 'active', graph: good }))).statusCode).toBe(201);
  });

  it('refuses a 10 000-node graph with a precise 400, and accepts the largest allowed chain', async () => {
    const ids = Array.from({ length: 10_000 }, (_, i) => `n${i}`);
    const res = await call('POST', '/api/v1/flows', flow({ status: 'active', graph: chain(...ids) }));
    expect(res.statusCode).toBe(400);
    expect(error(res)).toMatchObject({ code: 'VALIDATION_FAILED', path: ['body', 'graph', 'nodes'] });
    const big = chain(...ids.slice(0, 500));
    expect((await call('POST', '/api/v1/flows', flow({ status: 'active', graph: big }))).statusCode).toBe(201);
  });

  it('refuses hostile node ids and option keys', async () => {
    for (const id of ['__proto__', 'constructor', 'prototype', '$last', '1a']) {
      const res = await call('POST', '/api/v1/flows', flow({ graph: { nodes: [node(id)], edges: [] } }));
      expect(res.statusCode, id).toBe(400);
      expect(error(res).code).toBe('VALIDATION_FAILED');
    }
    const body = `{"name":"x","trigger":"manual","graph":{"nodes":[{"id":"a","operation":"log","options":{"__proto__":{"polluted":1}}}],"edges":[]}}`;
    const res = await t.call({
      method: 'POST',
      url: '/api/v1/flows',
      as: admin,
      site: 'main',
      payload: body,
      headers: { 'content-type': 'application/json' },
    });
    expect(res.statusCode).toBe(400);
    expect(error(res).extensions.reason).toBe('forbidden_key');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

describe('schedule flows', () => {
  const schedule = (cron?: string, status = 'active') =>
    call(
      'POST',
      '/api/v1/flows',
      flow({ status, trigger: 'schedule', triggerOptions: cron === undefined ? {} : { cron }, graph: chain('a') }),
    );

  it('computes nextRunAt in UTC on save', async () => {
    const res = await schedule('30 9 * * *');
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json().data.nextRunAt).toBe('2026-03-02T09:30:00.000Z');
  });

  it('CRON_INVALID for 4 fields, 6 fields, @daily, garbage and 30 February', async () => {
    for (const cron of ['0 9 * *', '0 0 9 * * *', '@daily', 'every day', '0 0 30 2 *']) {
      const res = await schedule(cron);
      expect(res.statusCode, cron).toBe(400);
      expect(error(res), cron).toMatchObject({ code: 'CRON_INVALID', path: ['triggerOptions', 'cron'] });
    }
  });

  it('CRON_REQUIRED when activating without one; a draft may wait for it', async () => {
    expect(error(await schedule(undefined)).code).toBe('CRON_REQUIRED');
    const draft = await schedule(undefined, 'draft');
    expect(draft.statusCode).toBe(201);
    expect(draft.json().data.nextRunAt).toBeNull();
  });
});

describe('GET /api/v1/flows', () => {
  it('filters by status and trigger and pages', async () => {
    await create({ name: 'filter-a', status: 'inactive', trigger: 'webhook' });
    await create({ name: 'filter-b', status: 'inactive', trigger: 'manual' });
    const res = await call('GET', '/api/v1/flows?status=inactive&trigger=webhook');
    expect(res.statusCode).toBe(200);
    expect(res.json().data.map((f: { name: string }) => f.name)).toEqual(['filter-a']);
    expect(res.json().meta).toEqual({ total: 1, page: 1, pageSize: 25 });
    const page = await call('GET', '/api/v1/flows?status=inactive&limit=1&page=2&sort=-name');
    expect(page.json().data.map((f: { name: string }) => f.name)).toEqual(['filter-a']);
    expect((await call('GET', '/api/v1/flows?status=paused')).statusCode).toBe(400);
  });
});

describe('PATCH, DELETE and history', () => {
  it('records every save, lists revisions newest first, and reads the flow as it was', async () => {
    clock.set('2026-03-05T10:00:00Z');
    const f = await create({ name: 'history' });
    clock.set('2026-03-06T10:00:00Z');
    const res = await call('PATCH', `/api/v1/flows/${f.id}`, { name: 'history 2', graph: chain('a') });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data).toMatchObject({ name: 'history 2', version: 2 });
    clock.set('2026-03-07T10:00:00Z');
    await call('PATCH', `/api/v1/flows/${f.id}`, { status: 'active' });
    const revs = await call('GET', `/api/v1/flows/${f.id}/revisions`);
    expect(revs.statusCode).toBe(200);
    expect(revs.json().meta).toEqual({ total: 3, limit: 25, offset: 0 });
    expect(
      revs
        .json()
        .data.map((r: { version: number; action: string; changed: string[] }) => [r.version, r.action, r.changed]),
    ).toEqual([
      [3, 'update', ['status']],
      [2, 'update', ['name', 'graph']],
      [1, 'create', ['name', 'description', 'status', 'trigger', 'triggerOptions', 'graph', 'runAs', 'options']],
    ]);
    const get = (q: string) => call('GET', `/api/v1/flows/${f.id}?${q}`);
    expect((await get('asOf=2026-03-05T12:00:00Z')).json().data).toMatchObject({ name: 'history', version: 1 });
    expect((await get('asOf=2026-03-06T12:00:00Z')).json().data).toMatchObject({ name: 'history 2', status: 'draft' });
    expect((await get('version=2')).json().data).toMatchObject({ name: 'history 2', version: 2 });
    expect((await get('asOf=2026-03-04')).statusCode).toBe(404);
    expect(error(await get('asOf=yesterday'))).toMatchObject({ code: 'VALIDATION_FAILED', path: ['query', 'asOf'] });
    const unchanged = await call('PATCH', `/api/v1/flows/${f.id}`, { name: 'history 2' });
    expect(unchanged.json().data.version).toBe(3);
  });

  it('deletes a flow: 404 afterwards, and the log keeps its history', async () => {
    const f = await create();
    expect((await call('DELETE', `/api/v1/flows/${f.id}`)).statusCode).toBe(204);
    expect((await call('GET', `/api/v1/flows/${f.id}`)).statusCode).toBe(404);
    expect((await call('DELETE', `/api/v1/flows/${f.id}`)).statusCode).toBe(404);
    expect((await call('PATCH', `/api/v1/flows/${f.id}`, { name: 'x' })).statusCode).toBe(404);
    const revs = (await call('GET', `/api/v1/flows/${f.id}/revisions`)).json().data;
    expect(revs.map((r: { action: string }) => r.action)).toEqual(['delete', 'create']);
  });

  it('resets triggerOptions when the trigger changes without new ones', async () => {
    const f = await create({ trigger: 'schedule', triggerOptions: { cron: '0 0 * * *' } });
    const res = await call('PATCH', `/api/v1/flows/${f.id}`, { trigger: 'webhook' });
    expect(res.json().data.triggerOptions).toEqual({});
  });
});

describe('POST /api/v1/flows/:id/token', () => {
  it('shows a new token once and keeps only its hash', async () => {
    const f = await create({ trigger: 'webhook' });
    const res = await call('POST', `/api/v1/flows/${f.id}/token`);
    expect(res.statusCode, res.body).toBe(200);
    const { token } = res.json().data;
    expect(token).toMatch(/^svcf_[A-Za-z0-9_-]{43}$/);
    const read = await call('GET', `/api/v1/flows/${f.id}`);
    expect(read.json().data.hasToken).toBe(true);
    expect(read.body).not.toContain(token);
    const events = await collect(t.deps.store.readStream(flowStream('main', f.id)));
    expect(JSON.stringify(events.map((e) => e.data))).not.toContain(token.slice(5));
    const revs = await call('GET', `/api/v1/flows/${f.id}/revisions`);
    expect(revs.body).not.toContain(token.slice(5));
  });
});

describe('GET /api/v1/flows/operations', () => {
  it('lists each operation with its options as JSON Schema and both edges', async () => {
    const res = await call('GET', '/api/v1/flows/operations');
    expect(res.statusCode).toBe(200);
    const ops = res.json().data as { key: string; edges: string[]; options: { properties: object } }[];
    expect(ops.map((o) => o.key).sort()).toEqual(
      [
        'condition',
        'item.create',
        'item.delete',
        'item.read',
        'item.update',
        'log',
        'mail',
        'request',
        'sleep',
        'transform',
        'trigger',
        'throw',
      ].sort(),
    );
    for (const o of ops) expect(o.edges).toEqual(['resolve', 'reject']);
    expect(ops.find((o) => o.key === 'sleep')!.options.properties).toHaveProperty('ms');
  });
});

describe('who may manage flows', () => {
  it('anonymous callers get 401, members without administration 403', async () => {
    const f = await create();
    for (const [m, url] of [
      ['GET', '/api/v1/flows'],
      ['GET', '/api/v1/flows/operations'],
      ['POST', '/api/v1/flows'],
      ['GET', `/api/v1/flows/${f.id}`],
      ['PATCH', `/api/v1/flows/${f.id}`],
      ['DELETE', `/api/v1/flows/${f.id}`],
      ['GET', `/api/v1/flows/${f.id}/revisions`],
      ['POST', `/api/v1/flows/${f.id}/token`],
    ] as [Method, string][]) {
      const body = m === 'POST' || m === 'PATCH' ? flow() : undefined;
      const payload = m === 'PATCH' ? { name: 'x' } : url.endsWith('/token') ? undefined : body;
      expect((await call(m, url, payload, { as: undefined })).statusCode, `${m} ${url}`).toBe(401);
      expect((await call(m, url, payload, { as: editor })).statusCode, `${m} ${url}`).toBe(403);
    }
  });

  it("another site's admin gets 404 for this site's flows and does not see them", async () => {
    const f = await create();
    const opts = { as: otherAdmin, site: 'other' };
    expect((await call('GET', `/api/v1/flows/${f.id}`, undefined, opts)).statusCode).toBe(404);
    expect((await call('GET', `/api/v1/flows/${f.id}?version=1`, undefined, opts)).statusCode).toBe(404);
    expect((await call('GET', `/api/v1/flows/${f.id}/revisions`, undefined, opts)).statusCode).toBe(404);
    expect((await call('PATCH', `/api/v1/flows/${f.id}`, { name: 'x' }, opts)).statusCode).toBe(404);
    expect((await call('POST', `/api/v1/flows/${f.id}/token`, undefined, opts)).statusCode).toBe(404);
    expect((await call('DELETE', `/api/v1/flows/${f.id}`, undefined, opts)).statusCode).toBe(404);
    expect((await call('GET', '/api/v1/flows', undefined, opts)).json().data).toEqual([]);
    expect((await call('GET', `/api/v1/flows/${f.id}`)).statusCode).toBe(200);
  });

  it('a site admin manages flows up to its own role: runAs admin is 403, an unknown role 400', async () => {
    const mine = await create({ runAs: 'editor' }, siteAdmin);
    expect(mine).toMatchObject({ id: expect.any(String) });
    const above = await call('POST', '/api/v1/flows', flow({ runAs: 'admin' }), { as: siteAdmin });
    expect(above.statusCode).toBe(403);
    expect(error(above)).toMatchObject({ code: 'PERMISSION_DENIED', extensions: { reason: 'run_as_above_caller' } });
    const unknown = await call('POST', '/api/v1/flows', flow({ runAs: 'ghost' }));
    expect(error(unknown)).toMatchObject({ code: 'VALIDATION_FAILED', path: ['runAs'] });
    const adminFlow = await create({ runAs: 'admin' });
    for (const [m, payload] of [
      ['PATCH', { name: 'mine now' }],
      ['DELETE', undefined],
    ] as [Method, unknown][])
      expect((await call(m, `/api/v1/flows/${adminFlow.id}`, payload, { as: siteAdmin })).statusCode).toBe(403);
    expect((await call('POST', `/api/v1/flows/${adminFlow.id}/token`, undefined, { as: siteAdmin })).statusCode).toBe(
      403,
    );
    expect((await call('PATCH', `/api/v1/flows/${mine.id}`, { runAs: 'admin' }, { as: siteAdmin })).statusCode).toBe(
      403,
    );
    expect((await call('GET', `/api/v1/flows/${adminFlow.id}`, undefined, { as: siteAdmin })).statusCode).toBe(200);
  });
});
