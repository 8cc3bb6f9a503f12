import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/setup/app.ts';

let t: TestApp;
let admin: string;
const call = (method: 'GET' | 'POST' | 'PATCH' | 'PUT', url: string, payload?: unknown) =>
  t.call({ method, url, payload: payload as object, as: admin, site: 'main' });
const WORKFLOW = {
  field: 'status',
  initial: ['draft'],
  transitions: { draft: ['review'], review: ['draft', 'published'], published: ['archived'] },
};

beforeAll(async () => {
  t = await createTestApp();
  admin = await t.setup();
  expect((await call('POST', '/api/v1/collections', { name: 'stories', workflow: WORKFLOW })).statusCode).toBe(201);
  await call('POST', '/api/v1/fields/stories', { field: 'title', type: 'string' });
});
afterAll(() => t.close());

describe('editorial gate', () => {
  it('lets an item start only in an initial state', async () => {
    expect((await call('POST', '/api/v1/items/stories', { id: 's1', title: 'One', status: 'draft' })).statusCode).toBe(
      201,
    );
    const res = await call('POST', '/api/v1/items/stories', { title: 'Two', status: 'published' });
    expect(res.statusCode).toBe(409);
    expect(res.json().errors[0]).toMatchObject({
      code: 'EDITORIAL_GATE_REQUIRED',
      path: ['status'],
      extensions: { from: null, to: 'published', allowed: ['draft'] },
    });
  });

  it("fills in the workflow's initial state when a create names none, alone and in a bulk", async () => {
    const one = await call('POST', '/api/v1/items/stories', { id: 'n1', title: 'No status' });
    expect(one.statusCode, one.body).toBe(201);
    expect(one.json().data.status).toBe('draft');
    const bulk = await call('POST', '/api/v1/items/stories', [{ id: 'n2' }, { id: 'n3', status: 'draft' }]);
    expect(bulk.statusCode, bulk.body).toBe(201);
    expect(bulk.json().data.map((r: { status: string }) => r.status)).toEqual(['draft', 'draft']);
    expect((await call('GET', '/api/v1/items/stories/n2')).json().data.status).toBe('draft');
  });

  it('allows only the transitions of the workflow, on PATCH and PUT', async () => {
    const skip = await call('PATCH', '/api/v1/items/stories/s1', { status: 'published' });
    expect(skip.statusCode).toBe(409);
    expect(skip.json().errors[0].code).toBe('EDITORIAL_GATE_REQUIRED');
    expect((await call('GET', '/api/v1/items/stories/s1')).json().data.status).toBe('draft');
    expect((await call('PATCH', '/api/v1/items/stories/s1', { title: 'Renamed' })).statusCode).toBe(200);
    expect((await call('PATCH', '/api/v1/items/stories/s1', { status: 'review' })).statusCode).toBe(200);
    expect((await call('PUT', '/api/v1/items/stories/s1', { title: 'Final', status: 'published' })).statusCode).toBe(
      200,
    );
    expect((await call('PATCH', '/api/v1/items/stories/s1', { status: 'draft' })).statusCode).toBe(409);
  });

  it('keeps a bulk create all or nothing when one item is gated', async () => {
    const res = await call('POST', '/api/v1/items/stories', [
      { id: 'b1', status: 'draft' },
      { id: 'b2', status: 'archived' },
    ]);
    expect(res.statusCode).toBe(409);
    expect((await call('GET', '/api/v1/items/stories/b1')).statusCode).toBe(404);
  });

  it('validates the workflow field, and can be changed or removed', async () => {
    const bad = await call('PATCH', '/api/v1/collections/stories', { workflow: { field: 'nope', transitions: {} } });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().errors[0].path).toEqual(['workflow', 'field']);
    expect((await call('PATCH', '/api/v1/collections/stories', { workflow: null })).statusCode).toBe(200);
    expect((await call('PATCH', '/api/v1/items/stories/s1', { status: 'draft' })).statusCode).toBe(200);
  });
});
