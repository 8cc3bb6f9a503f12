import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../kernel/clock.ts';
import { createTestApp, type TestApp } from '../../../test/setup/app.ts';
import { createUser } from '../../../test/setup/users.ts';
import { runDueFlows } from './runs/flow-run.worker.ts';
import { tickSchedules } from './runs/flow-schedule.ts';
import { FLOW_EVENT_TRIGGER, flowEventTrigger } from './runs/flow-event.reactor.ts';

const clock = new ManualClock(new Date('2026-04-01T08:00:00Z'));
let t: TestApp;
let admin: string;
let otherAdmin: string;

beforeAll(async () => {
  // The backtest's flow names a `request` target on loopback (never called: a dry run); saving one needs the flows'
  // private-address setting, as in the other flow tests.
  t = await createTestApp({ clock, env: { SVC_FLOW_ALLOW_PRIVATE: 'true' } });
  admin = await t.setup();
  expect((await call('POST', '/api/v1/sites', { id: 'other', name: 'Other' })).statusCode).toBe(201);
  otherAdmin = await createUser(t, 'otheradmin@example.com', 'Long-enough-pass-1!', { other: 'admin' });
  await call('POST', '/api/v1/collections', { name: 'posts' });
  await call('POST', '/api/v1/fields/posts', { field: 'title', type: 'string' });
});
afterAll(() => t.close());

type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
const call = (
  method: Method,
  url: string,
  payload?: unknown,
  opts: { as?: string | null; site?: string; headers?: Record<string, string> } = {},
) =>
  t.call({
    method,
    url,
    ...(opts.as === null ? {} : { as: opts.as ?? admin }),
    site: opts.site ?? 'main',
    ...(opts.headers ? { headers: opts.headers } : {}),
    ...(payload === undefined ? {} : { payload: payload as object }),
  });
const logGraph = { nodes: [{ id: 'a', operation: 'log', options: { message: '{{ $trigger.body.n }}' } }], edges: [] };
const createFlow = async (body: object) => {
  const res = await call('POST', '/api/v1/flows', { name: 'f', status: 'active', graph: logGraph, ...body });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().data.id as string;
};
const runs = async (flowId: string) => (await call('GET', `/api/v1/flows/${flowId}/runs`)).json().data;

describe('POST /api/v1/flows/:id/trigger', () => {
  let flowId: string;
  let token: string;
  const trigger = (
    headers: Record<string, string>,
    payload: unknown = { n: 1 },
    url = `/api/v1/flows/${flowId}/trigger`,
  ) => call('POST', url, payload, { as: null, headers });

  beforeAll(async () => {
    flowId = await createFlow({ trigger: 'webhook' });
  });

  it('answers WEBHOOK_NOT_CONFIGURED (401) before a token is issued', async () => {
    const res = await trigger({ 'x-flow-token': 'svcf_whatever' });
    expect(res.statusCode).toBe(401);
    expect(res.json().errors[0].code).toBe('WEBHOOK_NOT_CONFIGURED');
  });

  it('starts a run with the token in x-flow-token or as Bearer; input { body, headers, query } without credentials', async () => {
    token = (await call('POST', `/api/v1/flows/${flowId}/token`)).json().data.token;
    const a = await trigger(
      { 'x-flow-token': token, 'x-custom': 'yes', cookie: 'sid=secret' },
      { n: 1 },
      `/api/v1/flows/${flowId}/trigger?src=cms`,
    );
    expect(a.statusCode, a.body).toBe(202);
    const b = await trigger({ authorization: `Bearer ${token}` }, { n: 2 });
    expect(b.statusCode, b.body).toBe(202);
    await runDueFlows(t.deps);
    const all = await runs(flowId);
    expect(all).toHaveLength(2);
    const first = all.find((r: { id: string }) => r.id === a.json().data.runId);
    expect(first).toMatchObject({
      status: 'succeeded',
      trigger: 'webhook',
      input: { body: { n: 1 }, query: { src: 'cms' } },
    });
    expect(first.input.headers['x-custom']).toBe('yes');
    for (const r of all)
      for (const h of ['authorization', 'cookie', 'x-flow-token'])
        expect(Object.keys(r.input.headers)).not.toContain(h);
    expect(JSON.stringify(all)).not.toContain(token);
  });

  it('answers UNAUTHENTICATED (401) without a token or with a wrong one, and after rotation for the old one', async () => {
    const wrong: Record<string, string>[] = [
      {},
      { 'x-flow-token': 'svcf_wrong' },
      { authorization: 'Bearer svcf_wrong' },
    ];
    for (const headers of wrong) {
      const res = await trigger(headers);
      expect(res.statusCode).toBe(401);
      expect(res.json().errors[0].code).toBe('UNAUTHENTICATED');
    }
    const fresh = (await call('POST', `/api/v1/flows/${flowId}/token`)).json().data.token;
    expect((await trigger({ 'x-flow-token': token })).statusCode).toBe(401);
    expect((await trigger({ 'x-flow-token': fresh })).statusCode).toBe(202);
    token = fresh;
  });

  it('answers 404 for a flow that is not a webhook flow, not active, or of another site', async () => {
    const manual = await createFlow({ trigger: 'manual' });
    expect((await trigger({ 'x-flow-token': token }, {}, `/api/v1/flows/${manual}/trigger`)).statusCode).toBe(404);
    expect((await call('PATCH', `/api/v1/flows/${flowId}`, { status: 'inactive' })).statusCode).toBe(200);
    expect((await trigger({ 'x-flow-token': token })).statusCode).toBe(404);
    expect((await call('PATCH', `/api/v1/flows/${flowId}`, { status: 'active' })).statusCode).toBe(200);
    const elsewhere = await call(
      'POST',
      `/api/v1/flows/${flowId}/trigger`,
      {},
      { as: null, site: 'other', headers: { 'x-flow-token': token } },
    );
    expect(elsewhere.statusCode).toBe(404);
    expect(
      (await call('GET', `/api/v1/flows/${flowId}/runs`, undefined, { as: otherAdmin, site: 'other' })).statusCode,
    ).toBe(404);
  });
});

describe('schedule trigger', () => {
  it('starts the run <flowId>@<firing> exactly once under two racing ticks, then moves to the next firing', async () => {
    clock.set('2026-04-01T08:10:00Z');
    const flowId = await createFlow({ trigger: 'schedule', triggerOptions: { cron: '0 * * * *' } });
    const before = (await call('GET', `/api/v1/flows/${flowId}`)).json().data;
    expect(before.nextRunAt).toBe('2026-04-01T09:00:00.000Z');
    await Promise.all([tickSchedules(t.deps), tickSchedules(t.deps)]);
    expect(await runs(flowId)).toEqual([]);

    clock.set('2026-04-01T09:00:30Z');
    const started = await Promise.all([tickSchedules(t.deps), tickSchedules(t.deps)]);
    expect(started.flat()).toEqual([`${flowId}@2026-04-01T09:00:00.000Z`]);
    await runDueFlows(t.deps);
    const all = await runs(flowId);
    expect(all).toHaveLength(1);
    expect(all[0]).toMatchObject({
      id: `${flowId}@2026-04-01T09:00:00.000Z`,
      trigger: 'schedule',
      status: 'succeeded',
      input: { scheduledFor: '2026-04-01T09:00:00.000Z' },
    });
    const after = (await call('GET', `/api/v1/flows/${flowId}`)).json().data;
    expect(after).toMatchObject({ nextRunAt: '2026-04-01T10:00:00.000Z', updatedAt: before.updatedAt });
    // Saves only: the schedule's bookkeeping is no revision.
    expect((await call('GET', `/api/v1/flows/${flowId}/revisions`)).json().meta.total).toBe(1);
    expect(await tickSchedules(t.deps)).toEqual([]);
  });

  it('runs a firing missed while no node ran once, and skips to the next one after now', async () => {
    clock.set('2026-04-02T00:00:00Z');
    const flowId = await createFlow({ trigger: 'schedule', triggerOptions: { cron: '30 * * * *' } });
    clock.set('2026-04-02T05:45:00Z');
    const started = await tickSchedules(t.deps);
    expect(started.filter((id) => id.startsWith(flowId))).toEqual([`${flowId}@2026-04-02T00:30:00.000Z`]);
    expect((await call('GET', `/api/v1/flows/${flowId}`)).json().data.nextRunAt).toBe('2026-04-02T06:30:00.000Z');
  });
});

describe('event trigger', () => {
  const drain = () => t.deps.drainReactors(FLOW_EVENT_TRIGGER);

  it('starts one run per matching item event, with the event as input, never twice for one event', async () => {
    const flowId = await createFlow({
      trigger: 'event',
      triggerOptions: { events: ['items.create', 'items.update'], collections: ['posts'] },
      graph: {
        nodes: [{ id: 'a', operation: 'log', options: { message: '{{ $trigger.event }} {{ $trigger.id }}' } }],
        edges: [],
      },
    });
    const elsewhere = await createFlow({
      trigger: 'event',
      triggerOptions: { events: ['items.create'], collections: ['pages'] },
    });
    expect((await call('POST', '/api/v1/items/posts', { id: 'e1', title: 'one' })).statusCode).toBe(201);
    expect((await call('PATCH', '/api/v1/items/posts/e1', { title: 'two' })).statusCode).toBe(200);
    expect((await call('DELETE', '/api/v1/items/posts/e1')).statusCode).toBe(204);
    await drain();
    await runDueFlows(t.deps);
    const all = await runs(flowId);
    expect(all.map((r: { input: { event: string } }) => r.input.event).sort()).toEqual([
      'items.create',
      'items.update',
    ]);
    const update = all.find((r: { input: { event: string } }) => r.input.event === 'items.update');
    expect(update).toMatchObject({
      status: 'succeeded',
      trigger: 'event',
      input: { collection: 'posts', id: 'e1', fields: ['title'] },
    });
    expect(update.steps[0].output.message).toBe('items.update e1');
    expect(await runs(elsewhere)).toEqual([]);

    // Delivered again (a crash before the checkpoint moved): the run ids are the events', nothing starts twice.
    const log = await t.deps.store.readAll({ limit: 10_000 });
    const reactor = flowEventTrigger(t.deps);
    for (const e of log.filter((x) => x.type === 'ItemCreated' || x.type === 'ItemUpdated')) await reactor.handle(e);
    expect(await runs(flowId)).toHaveLength(2);
  });

  it('follows the flows as the log changes them: a flow paused, changed or made between two events', async () => {
    const trigger = { events: ['items.create'], collections: ['notes'] };
    await call('POST', '/api/v1/collections', { name: 'notes' });
    await call('POST', '/api/v1/fields/notes', { field: 'title', type: 'string' });
    const flowId = await createFlow({ trigger: 'event', triggerOptions: trigger });
    const made = async (id: string) => {
      expect((await call('POST', '/api/v1/items/notes', { id, title: id })).statusCode).toBe(201);
      await drain();
    };
    const heard = async (id: string) => (await runs(id)).map((r: { input: { id: string } }) => r.input.id).sort();
    await made('n1');
    expect(await heard(flowId)).toEqual(['n1']);
    // Paused: the reactor, which kept the site's flows since n1, hears of it before n2.
    expect((await call('PATCH', `/api/v1/flows/${flowId}`, { status: 'inactive' })).statusCode).toBe(200);
    await made('n2');
    expect(await heard(flowId)).toEqual(['n1']);
    expect((await call('PATCH', `/api/v1/flows/${flowId}`, { status: 'active' })).statusCode).toBe(200);
    const later = await createFlow({ trigger: 'event', triggerOptions: trigger });
    await made('n3');
    expect(await heard(flowId)).toEqual(['n1', 'n3']);
    expect(await heard(later)).toEqual(['n3']);
  });

  it('starts no run for the records or the account of a person who restricted processing', async () => {
    const flowId = await createFlow({ trigger: 'event', triggerOptions: { events: ['items.create', 'items.update'] } });
    const rita = await createUser(t, 'rita@example.com', 'Long-enough-pass-1!', { main: 'editor' });
    const res = await call('PUT', '/api/v1/me/restriction', { restricted: true }, { as: rita });
    expect(res.statusCode, res.body).toBe(200);
    expect((await call('POST', '/api/v1/items/posts', { id: 'r1', title: 'mine' }, { as: rita })).statusCode).toBe(201);
    expect((await call('PATCH', '/api/v1/items/posts/r1', { title: 'by admin' })).statusCode).toBe(200);
    expect((await call('POST', '/api/v1/items/posts', { id: 'a1', title: 'admin' })).statusCode).toBe(201);
    // An item about her (its subject field names her), written by the admin: hers too, so no run.
    const ritaId = (await call('GET', '/api/v1/auth/me', undefined, { as: rita })).json().data.id as string;
    const adminId = (await call('GET', '/api/v1/auth/me')).json().data.id as string;
    await call('POST', '/api/v1/collections', { name: 'cases' });
    await call('POST', '/api/v1/fields/cases', { field: 'person', type: 'string' });
    await call('POST', '/api/v1/fields/cases', { field: 'note', type: 'string' });
    const subject = await call('PATCH', '/api/v1/collections/cases', { subject: { from: 'field', field: 'person' } });
    expect(subject.statusCode, subject.body).toBe(200);
    expect((await call('POST', '/api/v1/items/cases', { id: 'c1', person: ritaId, note: 'x' })).statusCode).toBe(201);
    expect((await call('POST', '/api/v1/items/cases', { id: 'c2', person: adminId, note: 'y' })).statusCode).toBe(201);
    await drain();
    const all = await runs(flowId);
    expect(all.map((r: { input: { id: string } }) => r.input.id).sort()).toEqual(['a1', 'c2']);
  });
});

describe('POST /api/v1/flows/:id/backtest', () => {
  it('plays a draft event flow against past events in dry-run mode: would-be runs, nothing written or sent', async () => {
    expect((await call('POST', '/api/v1/items/posts', { id: 'b1', title: 'go' })).statusCode).toBe(201);
    expect((await call('POST', '/api/v1/items/posts', { id: 'b2', title: 'stay' })).statusCode).toBe(201);
    const res = await call('POST', '/api/v1/flows', {
      name: 'draft',
      trigger: 'event',
      triggerOptions: { events: ['items.create'], collections: ['posts'] },
      runAs: 'editor',
      graph: {
        nodes: [
          { id: 'go', operation: 'condition', options: { filter: { '$trigger.data.title': { _eq: 'go' } } } },
          {
            id: 'save',
            operation: 'item.update',
            options: { collection: 'posts', id: '{{ $trigger.id }}', data: { title: 'done' } },
          },
          {
            id: 'tell',
            operation: 'mail',
            options: { to: 'desk@example.com', subject: 'done {{ $trigger.id }}', body: 'x' },
          },
          { id: 'ping', operation: 'request', options: { url: 'http://127.0.0.1:9/never' } },
        ],
        edges: [
          { from: 'go', to: 'save', on: 'resolve' },
          { from: 'save', to: 'tell', on: 'resolve' },
          { from: 'tell', to: 'ping', on: 'resolve' },
        ],
      },
    });
    expect(res.statusCode, res.body).toBe(201);
    const flowId = res.json().data.id as string;
    const window = {
      from: new Date(clock.now().getTime() - 60_000).toISOString(),
      to: new Date(clock.now().getTime() + 60_000).toISOString(),
    };
    // A dry run writes nothing, so it is asked again until both items are in the log as the global reader sees it
    // (on a shared PostgreSQL an open transaction elsewhere holds the newest events back a moment).
    let runsById = new Map<string, unknown>();
    for (const deadline = Date.now() + 30_000; !(runsById.has('b1') && runsById.has('b2')) && Date.now() < deadline;) {
      const bt = await call('POST', `/api/v1/flows/${flowId}/backtest`, window);
      expect(bt.statusCode, bt.body).toBe(200);
      runsById = new Map(bt.json().data.map((r: { input: { id: string } }) => [r.input.id, r]));
      if (!(runsById.has('b1') && runsById.has('b2'))) await new Promise((r) => setTimeout(r, 50));
    }
    const b1 = runsById.get('b1') as { status: string; steps: { nodeId: string; output: Record<string, unknown> }[] };
    expect(b1.status).toBe('succeeded');
    expect(b1.steps.map((s) => s.nodeId)).toEqual(['go', 'save', 'tell', 'ping']);
    expect(b1.steps[1]!.output).toMatchObject({ wouldHave: 'updated an item', id: 'b1', changes: { title: 'done' } });
    expect(b1.steps[2]!.output).toMatchObject({ wouldHave: 'queued a mail', to: 'desk@example.com' });
    expect(b1.steps[3]!.output).toMatchObject({ wouldHave: 'sent a request' });
    const b2 = runsById.get('b2') as { steps: { nodeId: string; edge: string }[] };
    expect(b2.steps).toEqual([expect.objectContaining({ nodeId: 'go', edge: 'reject' })]);
    expect((await call('GET', '/api/v1/items/posts/b1')).json().data.title).toBe('go');
    expect(await runs(flowId)).toEqual([]);
    const outbox = await call('GET', '/api/v1/admin/outbox');
    expect(JSON.stringify(outbox.json())).not.toContain('done b1');

    const manual = await createFlow({ trigger: 'manual' });
    expect((await call('POST', `/api/v1/flows/${manual}/backtest`, window)).statusCode).toBe(400);
    const bad = await call('POST', `/api/v1/flows/${flowId}/backtest`, { from: 'yesterday', to: window.to });
    expect(bad.statusCode).toBe(400);
    const url = `/api/v1/flows/${flowId}/backtest`;
    expect((await call('POST', url, window, { as: otherAdmin, site: 'other' })).statusCode).toBe(404);
    expect((await call('POST', url, window, { as: null })).statusCode).toBe(401);
  });
});
