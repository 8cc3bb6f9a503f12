import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/setup/app.ts';
import { createUser } from '../../../test/setup/users.ts';
import { EXPANSION_LIMIT, expansionStats } from '../../../projections/item-documents/item-expand.ts';

let t: TestApp;
let admin: string;
/** Reads articles and authors, but of authors only the name (not the country). */
let reader: string;
type Method = 'GET' | 'POST';
const call = (method: Method, url: string, payload?: unknown, as = admin) =>
  t.call({ method, url, as, site: 'main', ...(payload !== undefined ? { payload: payload as object } : {}) });
const ok = async (method: Method, url: string, payload?: unknown) => {
  const res = await call(method, url, payload);
  expect(res.statusCode, `${method} ${url}: ${res.body}`).toBeLessThan(300);
  return res.json();
};
const read = async (fields: string, as = admin) => {
  const res = await call('GET', `/api/v1/items/articles/a1?fields=${fields}`, undefined, as);
  expect(res.statusCode, res.body).toBe(200);
  return res.json().data;
};

/** articles —m2o→ authors —m2o→ countries; articles —o2m→ comments; people —m2o→ people (a chain). */
beforeAll(async () => {
  t = await createTestApp();
  admin = await t.setup();
  const fields = async (c: string, list: [string, string][]) => {
    await ok('POST', '/api/v1/collections', { name: c });
    for (const [field, type] of list) await ok('POST', `/api/v1/fields/${c}`, { field, type });
  };
  await fields('countries', [['name', 'string']]);
  await fields('authors', [
    ['name', 'string'],
    ['country', 'string'],
  ]);
  await fields('articles', [
    ['title', 'string'],
    ['author', 'string'],
    ['comments', 'json'],
  ]);
  await fields('comments', [
    ['body', 'text'],
    ['article', 'string'],
  ]);
  const rel = (body: object) => ok('POST', '/api/v1/relations', body);
  await rel({ kind: 'm2o', collection: 'authors', field: 'country', target: 'countries' });
  await rel({ kind: 'm2o', collection: 'articles', field: 'author', target: 'authors' });
  await rel({ kind: 'm2o', collection: 'comments', field: 'article', target: 'articles' });
  await rel({ kind: 'o2m', collection: 'articles', field: 'comments', target: 'comments', targetField: 'article' });
  await ok('POST', '/api/v1/items/countries', { id: 'fr', name: 'France' });
  await ok('POST', '/api/v1/items/authors', { id: 'ada', name: 'Ada', country: 'fr' });
  await ok('POST', '/api/v1/items/articles', { id: 'a1', title: 'One', author: 'ada' });
  await ok('POST', '/api/v1/items/comments', { id: 'c1', body: 'Nice', article: 'a1' });
  const role = (await ok('POST', '/api/v1/roles', { name: 'Reader' })).data.id;
  const policy = (await ok('POST', '/api/v1/policies', { name: 'Read some' })).data.id;
  const rule = (body: object) => ok('POST', `/api/v1/policies/${policy}/permissions`, body);
  await rule({ collection: 'articles', action: 'read', fields: ['*'] });
  await rule({ collection: 'comments', action: 'read', fields: ['*'] });
  await rule({ collection: 'authors', action: 'read', fields: ['name'] });
  await rule({ collection: 'countries', action: 'read', fields: ['*'] });
  await ok('POST', `/api/v1/policies/${policy}/attach`, { role });
  reader = await createUser(t, 'reader@example.com', 'Wildcard-reader-31!', { main: role });
});
afterAll(() => t.close());

describe('GET /api/v1/items/:collection/:id with wildcard fields', () => {
  it('expands one level of every relation under *.*', async () => {
    const a = await read('*.*');
    expect(a).toMatchObject({ id: 'a1', title: 'One', author: { id: 'ada', name: 'Ada', country: 'fr' } });
    expect(a.comments).toEqual([expect.objectContaining({ id: 'c1', body: 'Nice', article: 'a1' })]);
  });

  it('expands n levels under a wildcard n deep (*.*.* and author.*.*)', async () => {
    const a = await read('*.*.*');
    expect(a.author).toMatchObject({ id: 'ada', name: 'Ada', country: { id: 'fr', name: 'France' } });
    expect(a.comments[0].article).toMatchObject({ id: 'a1', title: 'One' });
    const b = await read('title,author.*.*');
    expect(b).toEqual({
      id: 'a1',
      title: 'One',
      author: expect.objectContaining({
        country: {
          id: 'fr',
          name: 'France',
          created_at: expect.any(String),
          created_by: expect.any(String),
          updated_at: expect.any(String),
          updated_by: expect.any(String),
        },
      }),
    });
  });

  it('keeps the field rules at every level a wildcard reaches', async () => {
    const a = await read('*.*.*', reader);
    expect(a.author).toMatchObject({ id: 'ada', name: 'Ada' });
    expect(a.author).not.toHaveProperty('country');
  });

  it('stays within the expansion budget of one request', async () => {
    await ok('POST', '/api/v1/collections', { name: 'people' });
    await ok('POST', '/api/v1/fields/people', { field: 'friends', type: 'json' });
    await ok('POST', '/api/v1/fields/people', { field: 'friend_of', type: 'string' });
    await ok('POST', '/api/v1/relations', { kind: 'm2o', collection: 'people', field: 'friend_of', target: 'people' });
    await ok('POST', '/api/v1/relations', {
      kind: 'o2m',
      collection: 'people',
      field: 'friends',
      target: 'people',
      targetField: 'friend_of',
    });
    // 80 people, each a friend of the hub: every level lists the 80 again, and eight levels pass the budget.
    const many = Array.from({ length: 80 }, (_, i) => ({ id: `p${i}`, friend_of: 'p0' }));
    await ok('POST', '/api/v1/items/people', many);
    const before = expansionStats.rowsFetched;
    const res = await call('GET', `/api/v1/items/people?limit=100&fields=${'*.'.repeat(7)}*`);
    expect(res.statusCode, res.body.slice(0, 300)).toBe(400);
    expect(res.json().errors[0].extensions).toMatchObject({ reason: 'expansion_limit' });
    expect(expansionStats.rowsFetched - before).toBeLessThanOrEqual(EXPANSION_LIMIT + 100);
  });
});
