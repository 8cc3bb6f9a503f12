import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/setup/app.ts';
import { createUser } from '../../../test/setup/users.ts';

let t: TestApp;
let admin: string;
const call = (method: 'GET' | 'POST' | 'DELETE', url: string, payload?: unknown) =>
  t.call({ method, url, payload: payload as object, as: admin, site: 'main' });
const rel: Record<string, string> = {};
const status = async (c: string, id: string) => (await call('GET', `/api/v1/items/${c}/${id}`)).statusCode;

/** authors ← articles.author (cascade) ← comments.article (restrict); comments.parent → comments (restrict). */
beforeAll(async () => {
  t = await createTestApp();
  admin = await t.setup();
  for (const c of ['authors', 'articles', 'comments']) await call('POST', '/api/v1/collections', { name: c });
  await call('POST', '/api/v1/fields/authors', { field: 'name', type: 'string' });
  await call('POST', '/api/v1/fields/articles', { field: 'author', type: 'string' });
  await call('POST', '/api/v1/fields/comments', { field: 'article', type: 'string' });
  await call('POST', '/api/v1/fields/comments', { field: 'parent', type: 'string' });
  const relation = async (key: string, body: object) => {
    const res = await call('POST', '/api/v1/relations', body);
    expect(res.statusCode, res.body).toBe(201);
    rel[key] = res.json().data.id;
  };
  await relation('author', {
    kind: 'm2o',
    collection: 'articles',
    field: 'author',
    target: 'authors',
    onDelete: 'cascade',
  });
  await relation('parent', {
    kind: 'm2o',
    collection: 'comments',
    field: 'parent',
    target: 'comments',
    onDelete: 'restrict',
  });
  const post = async (c: string, body: object) =>
    expect((await call('POST', `/api/v1/items/${c}`, body)).statusCode).toBe(201);
  await post('authors', [
    { id: 'ada', name: 'Ada' },
    { id: 'bob', name: 'Bob' },
  ]);
  await post('articles', [{ id: 'a1', author: 'ada' }, { id: 'a2', author: 'bob' }, { id: 'a8' }, { id: 'a9' }]);
  expect((await call('DELETE', '/api/v1/items/articles/a8')).statusCode).toBe(204);
  await post('comments', [
    { id: 'c1', article: 'a1' },
    { id: 'c2', article: 'a2' },
    { id: 'c3', article: 'a2', parent: 'c2' },
    { id: 'c4', article: 'a9', parent: 'c4' },
    { id: 'c5', article: 'a8' },
    { id: 'c6', article: 'nope' },
  ]);
  // Made after the comments: a write may not name a deleted or unknown item, and c5 and c6 keep such references.
  await relation('article', {
    kind: 'm2o',
    collection: 'comments',
    field: 'article',
    target: 'articles',
    onDelete: 'restrict',
  });
});
afterAll(() => t.close());

describe('DELETE /api/v1/items/:collection/:id', () => {
  it('answers 404 RECORD_NOT_FOUND for a deleted or unknown item, even when references to its id remain', async () => {
    for (const id of ['a8', 'nope']) {
      const res = await call('DELETE', `/api/v1/items/articles/${id}`);
      expect(res.statusCode, id).toBe(404);
      expect(res.json().errors[0].code).toBe('RECORD_NOT_FOUND');
    }
  });

  it('is not held up by the item pointing at itself', async () => {
    const deps = (await call('GET', '/api/v1/items/comments/c4/dependents')).json().data;
    expect(deps).toEqual({ blocking: false, dependents: [] });
    expect((await call('DELETE', '/api/v1/items/comments/c4')).statusCode).toBe(204);
  });
});

describe('POST /api/v1/items/:collection/:id/resolve-dependents with delete', () => {
  it('refuses with 409 DEPENDENT_RECORDS_EXIST when the items it would delete are restricted themselves', async () => {
    for (const hard of [false, true]) {
      const res = await call('POST', '/api/v1/items/authors/ada/resolve-dependents', {
        action: 'delete',
        relation: rel.author,
        hard,
      });
      expect(res.statusCode, res.body).toBe(409);
      const body = res.json();
      expect(body.errors[0].code).toBe('DEPENDENT_RECORDS_EXIST');
      expect(body.dependents).toEqual([
        {
          relation: rel.article,
          collection: 'comments',
          field: 'article',
          onDelete: 'restrict',
          count: 1,
          sample: ['c1'],
        },
      ]);
      expect(await status('articles', 'a1')).toBe(200);
    }
  });

  it('deletes them once their own dependents are resolved', async () => {
    expect((await call('DELETE', '/api/v1/items/comments/c1')).statusCode).toBe(204);
    const res = await call('POST', '/api/v1/items/authors/ada/resolve-dependents', {
      action: 'delete',
      relation: rel.author,
    });
    expect(res.json().data).toMatchObject({ affected: 1, ids: ['a1'] });
    expect(await status('articles', 'a1')).toBe(404);
    expect((await call('DELETE', '/api/v1/items/authors/ada')).statusCode).toBe(204);
  });

  it('is not held up by references among the items it deletes together', async () => {
    const res = await call('POST', '/api/v1/items/articles/a2/resolve-dependents', {
      action: 'delete',
      relation: rel.article,
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data.ids).toEqual(['c2', 'c3']);
    expect([await status('comments', 'c2'), await status('comments', 'c3')]).toEqual([404, 404]);
  });
});

describe('GET /api/v1/items/:collection/:id/dependents', () => {
  it('answers a member who may not write items with 403 PERMISSION_DENIED, on both routes', async () => {
    const viewer = await createUser(t, 'viewer@example.com', 'Viewer-pass-1234', { main: 'viewer' });
    const as = { as: viewer, site: 'main' };
    const list = await t.call({ method: 'GET', url: '/api/v1/items/authors/bob/dependents', ...as });
    expect(list.statusCode).toBe(403);
    expect(list.json().errors[0].code).toBe('PERMISSION_DENIED');
    const res = await t.call({
      method: 'POST',
      url: '/api/v1/items/authors/bob/resolve-dependents',
      payload: { action: 'delete', relation: rel.author },
      ...as,
    });
    expect(res.statusCode).toBe(403);
    expect(await status('articles', 'a2')).toBe(200);
  });
});
