import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../kernel/clock.ts';
import { createTestApp, type TestApp } from '../../../test/setup/app.ts';
import { itemStream } from '../../contracts/items/item.events.ts';
import { loadRun } from './runs/flow-run.commands.ts';
import { flowRunStream } from '../../contracts/flows/flow-run.events.ts';
import { perform } from './runs/flow-run.executor.ts';
import { stepCause } from './runs/flow-run.item-ops.ts';
import { nextAction } from './runs/flow-run.state.ts';
import { runDueFlows } from './runs/flow-run.worker.ts';

const clock = new ManualClock(new Date('2026-04-01T08:00:00Z'));
let t: TestApp;
let admin: string;

beforeAll(async () => {
  t = await createTestApp({ clock });
  admin = await t.setup();
  await call('POST', '/api/v1/collections', { name: 'notes' });
  await call('POST', '/api/v1/fields/notes', { field: 'title', type: 'string' });
  await call('POST', '/api/v1/collections', { name: 'tags', primaryKeyType: 'uuid' });
  await call('POST', '/api/v1/fields/tags', { field: 'title', type: 'string' });
});
afterAll(async () => t.close());

const call = (method: 'GET' | 'POST' | 'PATCH', url: string, payload?: object) =>
  t.call({ method, url, as: admin, site: 'main', ...(payload === undefined ? {} : { payload }) });
const node = (id: string, operation: string, options: object) => ({ id, operation, options });
const startRunOf = async (nodes: object[], edges: object[] = []) => {
  const graph = { nodes, edges };
  const flow = await call('POST', '/api/v1/flows', {
    name: 'f',
    trigger: 'manual',
    status: 'active',
    runAs: 'editor',
    graph,
  });
  expect(flow.statusCode, flow.body).toBe(201);
  const run = await call('POST', `/api/v1/flows/${flow.json().data.id}/run`, {});
  expect(run.statusCode, run.body).toBe(202);
  return run.json().data.id as string;
};

/** The process dies after the next step's write and before its record: the step's effect is done, the log lacks it. */
async function crashAfterWrite(runId: string) {
  const { state } = await loadRun(t.deps, 'main', runId);
  const action = nextAction(state, clock.now());
  expect(action.kind).toBe('step');
  const lost = await perform({ deps: t.deps, siteId: 'main' }, state, action, clock.now());
  expect(lost.map((e) => e.type)).toEqual(['FlowStepCompleted']);
}

const streamOf = async (streamId: string) => {
  const events = [];
  for await (const e of t.deps.store.readStream(streamId)) events.push(e);
  return events;
};
const stepRecords = async (runId: string) =>
  (await streamOf(flowRunStream('main', runId))).flatMap((e) =>
    e.type === 'FlowStepCompleted' || e.type === 'FlowStepFailed'
      ? [`${(e.data as { nodeId: string }).nodeId}:${e.type}`]
      : [],
  );
const statusOf = async (runId: string) => (await loadRun(t.deps, 'main', runId)).state.status;

describe('an item step tried again after a crash between its write and its record', () => {
  it('item.create without an id finds the item it made: one item, the step recorded once with it', async () => {
    const runId = await startRunOf(
      [
        node('make', 'item.create', { collection: 'notes', data: { title: 'once' } }),
        node('done', 'log', { message: 'made {{ make.id }}' }),
      ],
      [{ from: 'make', to: 'done', on: 'resolve' }],
    );
    await crashAfterWrite(runId);
    await t.restart();
    await runDueFlows(t.deps);

    expect(await statusOf(runId)).toBe('succeeded');
    expect(await stepRecords(runId)).toEqual(['make:FlowStepCompleted', 'done:FlowStepCompleted']);
    const made = (await call('GET', '/api/v1/items/notes?filter[title][_eq]=once')).json().data as { id: string }[];
    expect(made).toHaveLength(1);
    const { state } = await loadRun(t.deps, 'main', runId);
    expect(state.outputs.get('make')).toMatchObject({ id: made[0]!.id, title: 'once' });
    const created = await streamOf(itemStream('main', 'notes', made[0]!.id));
    expect(created.map((e) => [e.type, e.metadata.causationId])).toEqual([['ItemCreated', stepCause(runId, 'make')]]);
  });

  it('item.create in a uuid collection derives a UUID from the run and node, and makes one item', async () => {
    const runId = await startRunOf([node('make', 'item.create', { collection: 'tags', data: { title: 'uuid-once' } })]);
    await crashAfterWrite(runId);
    await runDueFlows(t.deps);
    expect(await statusOf(runId)).toBe('succeeded');
    const made = (await call('GET', '/api/v1/items/tags?filter[title][_eq]=uuid-once')).json().data as { id: string }[];
    expect(made).toHaveLength(1);
    expect(made[0]!.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });

  it('item.update writes one update event, caused by the step', async () => {
    expect((await call('POST', '/api/v1/items/notes', { id: 'n1', title: 'before' })).statusCode).toBe(201);
    const runId = await startRunOf([
      node('save', 'item.update', { collection: 'notes', id: 'n1', data: { title: 'after' } }),
    ]);
    await crashAfterWrite(runId);
    await runDueFlows(t.deps);

    expect(await statusOf(runId)).toBe('succeeded');
    expect(await stepRecords(runId)).toEqual(['save:FlowStepCompleted']);
    const events = await streamOf(itemStream('main', 'notes', 'n1'));
    expect(events.map((e) => e.type)).toEqual(['ItemCreated', 'ItemUpdated']);
    expect(events[1]!.metadata.causationId).toBe(stepCause(runId, 'save'));
    const { state } = await loadRun(t.deps, 'main', runId);
    expect(state.outputs.get('save')).toMatchObject({ id: 'n1', title: 'after' });
  });

  it('item.delete deletes once and succeeds, where a second delete would have found no item', async () => {
    expect((await call('POST', '/api/v1/items/notes', { id: 'n2', title: 'doomed' })).statusCode).toBe(201);
    const runId = await startRunOf([node('drop', 'item.delete', { collection: 'notes', id: 'n2' })]);
    await crashAfterWrite(runId);
    await runDueFlows(t.deps);

    expect(await statusOf(runId)).toBe('succeeded');
    expect(await stepRecords(runId)).toEqual(['drop:FlowStepCompleted']);
    const events = await streamOf(itemStream('main', 'notes', 'n2'));
    expect(events.map((e) => e.type)).toEqual(['ItemCreated', 'ItemDeleted']);
  });

  it('still refuses an id given in the options that another writer holds (ItemExists, not taken as done)', async () => {
    const runId = await startRunOf([
      node('make', 'item.create', { collection: 'notes', data: { id: 'n1', title: 'x' } }),
    ]);
    await runDueFlows(t.deps);
    expect(await statusOf(runId)).toBe('failed');
    expect(await stepRecords(runId)).toEqual(['make:FlowStepFailed']);
  });
});
