import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../setup/app.ts';
import { createUser } from '../setup/users.ts';

let t: TestApp;
let admin: string;
let alice: string;
type M = 'GET' | 'POST' | 'PATCH' | 'DELETE';
const call = (as: string, method: M, url: string, payload?: object) =>
  t.call({ method, url, payload, as, site: 'main' });
beforeAll(async () => {
  t = await createTestApp();
  admin = await t.setup();
  const post = (url: string, payload: object) => call(admin, 'POST', url, payload).then((r) => r.json());
  await post('/api/v1/collections', { name: 'authors' });
  await post('/api/v1/fields/authors', { field: 'name', type: 'string' });
  await post('/api/v1/collections', { name: 'books' });
  await post('/api/v1/fields/books', { field: 'title', type: 'string' });
  await post('/api/v1/fields/books', { field: 'author', type: 'string' });
  await post('/api/v1/relations', { kind: 'm2o', collection: 'books', field: 'author', target: 'authors' });
  const role = (await post('/api/v1/roles', { name: 'Author' })).data.id;
  const policy = (await post('/api/v1/policies', { name: 'Own' })).data.id;
  const own = { created_by: { _eq: '$CURRENT_USER' } };
  for (const action of ['read', 'update', 'delete'])
    await post(`/api/v1/policies/${policy}/permissions`, {
      collection: 'books',
      action,
      fields: ['*'],
      conditions: own,
    });
  await post(`/api/v1/policies/${policy}/permissions`, { collection: 'books', action: 'create', fields: ['*'] });
  await post(`/api/v1/policies/${policy}/permissions`, { collection: 'authors', action: 'read', fields: ['*'] });
  await post(`/api/v1/policies/${policy}/attach`, { role });
  alice = await createUser(t, 'alice@example.com', 'Items-perm-2718!', { main: role });
  await post('/api/v1/items/authors', { id: 'a1', name: 'A' });
  await post('/api/v1/items/books', { id: 'theirs', title: 'T', author: 'a1' });
  await call(alice, 'POST', '/api/v1/items/books', { id: 'mine', title: 'M', author: 'a1' });
  await post('/api/v1/fields/books', { field: 'n', type: 'integer' });
});
afterAll(() => t.close());

/** The answer a caller gets for a row it may not read must not differ from the answer for a row that does not exist. */
const sameAsMissing = async (m: M, existing: string, missing: string, payload?: object) => {
  const [a, b] = [await call(alice, m, existing, payload), await call(alice, m, missing, payload)];
  expect(a.statusCode, a.body).toBe(b.statusCode);
  expect(a.json().errors[0].code).toBe(b.json().errors[0].code);
  expect(a.body).not.toContain('you may not delete this item');
};

describe('dependents reveal rows outside the read conditions', () => {
  it('GET dependents of a row another user owns answers like a missing row (404), not 403', async () => {
    await sameAsMissing('GET', '/api/v1/items/books/theirs/dependents', '/api/v1/items/books/nope/dependents');
  });

  it('POST resolve-dependents of a row another user owns answers like a missing row', async () => {
    const body = { relation: 'books.author', action: 'delete' };
    await sameAsMissing(
      'POST',
      '/api/v1/items/books/theirs/resolve-dependents',
      '/api/v1/items/books/nope/resolve-dependents',
      body,
    );
  });
});

describe('query parameters that the parsers ignore or misname', () => {
  const get = (qs: string) => call(admin, 'GET', `/api/v1/items/books?${qs}`);

  it('deep on a field that is not a relation is refused (400), not silently dropped', async () => {
    for (const qs of [
      `deep=${encodeURIComponent('{"title":{"_filter":{"toString":{"_eq":1}}}}')}`,
      `deep=${encodeURIComponent('{"nothing":{"_limit":1}}')}`,
      'deep[title][_limit]=1',
    ]) {
      const res = await get(qs);
      expect(res.statusCode, `${qs}: ${res.body}`).toBe(400);
    }
  });

  it('an unknown field in aggregate or groupBy is reported at the parameter, not under filter', async () => {
    for (const [qs, at] of [
      [`aggregate=${encodeURIComponent('{"sum":["toString"]}')}`, 'aggregate'],
      [`aggregate=${encodeURIComponent('{"count":["constructor"]}')}`, 'aggregate'],
      ['aggregate[count]=toString', 'aggregate'],
      ['groupBy=toString&aggregate[count]=*', 'groupBy'],
    ] as const) {
      const res = await get(qs);
      expect(res.statusCode, res.body).toBe(400);
      const path = res.json().errors[0].path as string[];
      expect(path.join('.'), `${qs}: ${res.body}`).toContain(at);
    }
  });

  it('constructor in a JSON-form aggregate is refused as a forbidden key, like the bracket form', async () => {
    const res = await get(`aggregate=${encodeURIComponent('{"sum":["constructor"]}')}`);
    expect(res.json().errors[0]).toMatchObject({ extensions: { reason: 'forbidden_key' } });
  });
});
