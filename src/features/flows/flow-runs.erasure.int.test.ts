import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/setup/app.ts';
import { createUser } from '../../../test/setup/users.ts';
import { tablesHolding } from '../../../test/support/table-scan.ts';
import { runDueFlows } from './runs/flow-run.worker.ts';

const PASSWORD = 'Flow-erasure-pass-1!';
let t: TestApp;
let admin: string;

type Method = 'GET' | 'POST' | 'PATCH';
const call = (method: Method, url: string, payload?: object, as = admin) =>
  t.call({ method, url, as, site: 'main', ...(payload === undefined ? {} : { payload }) });
const ok = async (method: Method, url: string, payload?: object, as = admin) => {
  const res = await call(method, url, payload, as);
  expect(res.statusCode, res.body).toBeLessThan(300);
  return res.json().data;
};
/** Where a value could still be read: every text, JSON and byte column of every table (events and read models). */
const traces = (needles: string[]) => tablesHolding(t.deps.database.owner, needles);
const node = (id: string, operation: string, options: object) => ({ id, operation, options });
const edge = (from: string, to: string) => ({ from, to, on: 'resolve' });

beforeAll(async () => {
  t = await createTestApp();
  admin = await t.setup();
  await ok('POST', '/api/v1/collections', { name: 'customers', subject: { from: 'item' } });
  await ok('POST', '/api/v1/fields/customers', { field: 'name', type: 'string', personal: true });
  await ok('POST', '/api/v1/collections', { name: 'tickets' });
  await ok('POST', '/api/v1/fields/tickets', { field: 'owner', type: 'string' });
  await ok('PATCH', '/api/v1/collections/tickets', { subject: { from: 'field', field: 'owner' } });
  await ok('POST', '/api/v1/fields/tickets', { field: 'phone', type: 'string', personal: true });
});
afterAll(() => t.close());

/** A manual flow that writes its input into a personal field, then logs it: the values every run records. */
const flowInto = async (create: object, message: string) => {
  const graph = {
    nodes: [node('save', 'item.create', create), node('say', 'log', { message })],
    edges: [edge('save', 'say')],
  };
  const body = { name: 'signup', trigger: 'manual', status: 'active', runAs: 'admin', graph };
  return (await ok('POST', '/api/v1/flows', body)).id as string;
};
const runOnce = async (flowId: string, input: object) => {
  const started = await ok('POST', `/api/v1/flows/${flowId}/run`, input);
  await runDueFlows(t.deps);
  const run = await ok('GET', `/api/v1/flows/${flowId}/runs/${encodeURIComponent(started.id)}`);
  expect(run.status).toBe('succeeded');
  return run as { id: string; input: unknown; steps: { input: unknown; output: unknown }[] };
};
const auditText = async () => JSON.stringify(await ok('GET', '/api/v1/audit?limit=200'));

describe('flow runs and erasure', () => {
  it('leaves nothing of an item subject’s value readable in a run once the item is erased, rebuild included', async () => {
    const secret = 'Zorbalina Quenchfeather';
    const flowId = await flowInto(
      { collection: 'customers', data: { id: '{{ $trigger.ref }}', name: '{{ $trigger.name }}' } },
      'welcome {{ $trigger.name }}',
    );
    const run = await runOnce(flowId, { ref: 'c-1', name: secret });
    // Before the erasure the site's administrators read the run as it was.
    expect(JSON.stringify(run)).toContain(secret);
    expect(run.steps[1]!.output).toMatchObject({ message: `welcome ${secret}` });
    expect(await auditText()).not.toContain(secret);

    const erased = await call('POST', '/api/v1/admin/erasure', {
      item: { collection: 'customers', id: 'c-1' },
      reason: 'request',
    });
    expect(erased.statusCode, erased.body).toBe(201);
    const after = await ok('GET', `/api/v1/flows/${flowId}/runs/${encodeURIComponent(run.id)}`);
    expect(JSON.stringify(after)).not.toContain(secret);
    expect(after).toMatchObject({ status: 'succeeded', input: null, steps: [{ input: null, output: null }, {}] });
    const listed = await ok('GET', `/api/v1/flows/${flowId}/runs`);
    expect(JSON.stringify(listed)).not.toContain(secret);
    expect(await auditText()).not.toContain(secret);
    expect(await traces([secret, 'Zorbalina'])).toEqual([]);
    for (const name of ['flow-runs', 'flow-run-subjects']) await t.deps.engine.rebuild(name);
    expect(await traces([secret, 'Zorbalina'])).toEqual([]);
    expect(JSON.stringify(await ok('GET', `/api/v1/flows/${flowId}/runs/${encodeURIComponent(run.id)}`))).not.toContain(
      secret,
    );
  });

  it('leaves nothing of a person’s value readable in a run once the person is erased', async () => {
    const phone = '+41 79 555 12 34';
    const person = await createUser(t, 'ticket.owner@flows.test', PASSWORD, { main: 'viewer' });
    const ownerId = (await ok('GET', '/api/v1/auth/me', undefined, person)).id as string;
    const flowId = await flowInto(
      { collection: 'tickets', data: { owner: '{{ $trigger.owner }}', phone: '{{ $trigger.phone }}' } },
      'call {{ $trigger.phone }}',
    );
    const run = await runOnce(flowId, { owner: ownerId, phone });
    expect(JSON.stringify(run)).toContain(phone);
    const erased = await call('POST', '/api/v1/admin/erasure', { userId: ownerId, reason: 'request' });
    expect(erased.statusCode, erased.body).toBe(201);
    const after = await ok('GET', `/api/v1/flows/${flowId}/runs/${encodeURIComponent(run.id)}`);
    expect(JSON.stringify(after)).not.toContain(phone);
    expect(await auditText()).not.toContain(phone);
    expect(await traces([phone])).toEqual([]);
    for (const name of ['flow-runs', 'flow-run-subjects']) await t.deps.engine.rebuild(name);
    expect(await traces([phone])).toEqual([]);
  });

  it('rebuilds the runs’ subjects to what they were live', async () => {
    const snapshot = async () =>
      JSON.stringify(
        (
          await sql`select site_id, run_id, subject_id from flow_run_subjects
            order by site_id, run_id, subject_id`.execute(t.deps.database.owner)
        ).rows,
      );
    const live = await snapshot();
    expect(live).toContain('item:');
    await t.deps.engine.rebuild('flow-run-subjects');
    expect(await snapshot()).toBe(live);
  });
});
