import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/setup/app.ts';
import { createUser } from '../../../test/setup/users.ts';

let t: TestApp;
let admin: string;
let reader: string;
type Method = 'GET' | 'POST' | 'PATCH';
const ok = async (as: string, method: Method, url: string, payload?: object) => {
  const res = await t.call({ method, url, payload, as, site: 'main' });
  expect(res.statusCode, `${method} ${url}: ${res.body}`).toBeLessThan(300);
  return res.json();
};

beforeAll(async () => {
  t = await createTestApp();
  admin = await t.setup();
  await ok(admin, 'POST', '/api/v1/collections', { name: 'posts' });
  for (const [field, type] of [
    ['title', 'string'],
    ['views', 'integer'],
    ['secret', 'string'],
  ])
    await ok(admin, 'POST', '/api/v1/fields/posts', { field, type });
  await ok(admin, 'POST', '/api/v1/items/posts', { id: 'p1', title: 'One' });
  await ok(admin, 'POST', '/api/v1/fields/posts', { field: 'later', type: 'string' });
  const role = (await ok(admin, 'POST', '/api/v1/roles', { name: 'Reader' })).data.id;
  const policy = (await ok(admin, 'POST', '/api/v1/policies', { name: 'Read some' })).data.id;
  await ok(admin, 'POST', `/api/v1/policies/${policy}/permissions`, {
    collection: 'posts',
    action: 'read',
    fields: ['title', 'views'],
  });
  await ok(admin, 'POST', `/api/v1/policies/${policy}/attach`, { role });
  reader = await createUser(t, 'reader@example.com', 'Null-fields-2718!', { main: role });
}, 60_000);
afterAll(() => t.close());

describe('fields without a value', () => {
  it('are null when asked for, in a list and by id', async () => {
    const list = (await ok(admin, 'GET', '/api/v1/items/posts?fields=title,views')).data;
    expect(list).toEqual([{ id: 'p1', title: 'One', views: null }]);
    const one = (await ok(admin, 'GET', '/api/v1/items/posts/p1?fields=title,views')).data;
    expect(one).toEqual({ id: 'p1', title: 'One', views: null });
  });

  it('are null without fields, also for a field added after the item', async () => {
    const one = (await ok(admin, 'GET', '/api/v1/items/posts/p1')).data;
    expect(one).toMatchObject({ title: 'One', views: null, secret: null, later: null });
    const list = (await ok(admin, 'GET', '/api/v1/items/posts?fields=later')).data;
    expect(list).toEqual([{ id: 'p1', later: null }]);
  });

  it('stay absent when the caller may not read them', async () => {
    const one = (await ok(reader, 'GET', '/api/v1/items/posts/p1')).data;
    expect(one).toMatchObject({ title: 'One', views: null });
    expect(Object.hasOwn(one, 'secret')).toBe(false);
    expect(Object.hasOwn(one, 'later')).toBe(false);
  });

  it('are null in the answers of writes too', async () => {
    const created = await ok(admin, 'POST', '/api/v1/items/posts', { title: 'Two' });
    expect(created.data).toMatchObject({ title: 'Two', views: null, secret: null, later: null });
    const patched = await ok(admin, 'PATCH', `/api/v1/items/posts/${created.data.id}`, { views: 3 });
    expect(patched.data).toMatchObject({ views: 3, secret: null, later: null });
  });
});
