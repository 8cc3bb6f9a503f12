import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/setup/app.ts';

let t: TestApp;
let admin: string;
const call = (method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, payload?: unknown) =>
  t.call({ method, url, payload: payload as object, as: admin, site: 'main' });
const total = async (q: string) => (await call('GET', `/api/v1/items/articles?limit=1&${q}`)).json().meta.total;

beforeAll(async () => {
  t = await createTestApp();
  admin = await t.setup();
  await call('POST', '/api/v1/collections', { name: 'authors' });
  await call('POST', '/api/v1/fields/authors', { field: 'name', type: 'string' });
  await call('POST', '/api/v1/collections', { name: 'articles' });
  await call('POST', '/api/v1/fields/articles', { field: 'views', type: 'integer' });
  await call('POST', '/api/v1/fields/articles', { field: 'author', type: 'string' });
  await call('POST', '/api/v1/relations', { kind: 'm2o', collection: 'articles', field: 'author', target: 'authors' });
  await call('POST', '/api/v1/items/authors', { id: 'ada', name: 'Ada' });
  await call('POST', '/api/v1/items/articles', [
    { id: 'a1', views: 1, author: 'ada' },
    { id: 'a2', views: 5 },
  ]);
});
afterAll(() => t.close());

describe('counted totals', () => {
  it('follow every change of the collection, however often the same page is asked for', async () => {
    expect(await total('')).toBe(2);
    expect(await total('filter[views][_gt]=2')).toBe(1);
    await call('PATCH', '/api/v1/items/articles/a1', { views: 9 });
    expect(await total('filter[views][_gt]=2')).toBe(2);
    await call('DELETE', '/api/v1/items/articles/a2');
    expect(await total('')).toBe(1);
    expect(await total('filter[views][_gt]=2')).toBe(1);
    await call('POST', '/api/v1/items/articles', { id: 'a3', views: 3 });
    expect(await total('')).toBe(2);
  });

  it('follow changes on an empty page too (the counter is read on its own there)', async () => {
    const beyond = async () => (await call('GET', '/api/v1/items/articles?limit=1&offset=50')).json();
    const before = await beyond();
    expect(before.data).toEqual([]);
    await call('POST', '/api/v1/items/articles', { id: 'a4', views: 4 });
    const after = await beyond();
    expect(after.data).toEqual([]);
    expect(after.meta.total).toBe(before.meta.total + 1);
    expect(await total('filter[views][_gt]=1000')).toBe(0);
    await call('POST', '/api/v1/items/articles', { id: 'a5', views: 2000 });
    expect(await total('filter[views][_gt]=1000')).toBe(1);
  });

  it('follow changes of related collections when the filter goes through a relation', async () => {
    expect(await total('filter[author.name][_eq]=Ada')).toBe(1);
    await call('PATCH', '/api/v1/items/authors/ada', { name: 'Ada L.' });
    expect(await total('filter[author.name][_eq]=Ada')).toBe(0);
  });
});
