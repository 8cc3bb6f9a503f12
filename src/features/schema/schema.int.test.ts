import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/setup/app.ts';
import { createUser } from '../../../test/setup/users.ts';

let t: TestApp;
let admin: string;
let viewer: string;
beforeAll(async () => {
  t = await createTestApp();
  admin = await t.setup();
  await t.call({ method: 'POST', url: '/api/v1/sites', as: admin, payload: { id: 'other', name: 'Other' } });
  viewer = await createUser(t, 'viewer@example.com', 'Viewer-pass-1234', { main: 'viewer' });
});
afterAll(() => t.close());

const call = (method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, payload?: unknown, site = 'main', as = admin) =>
  t.call({ method, url, payload: payload as object, as, site });

describe('collections', () => {
  it('creates, reads, lists, updates and soft-deletes a collection', async () => {
    const res = await call('POST', '/api/v1/collections', {
      name: 'articles',
      displayName: 'Articles',
      icon: 'article',
    });
    expect(res.statusCode).toBe(201);
    expect(res.json().data).toMatchObject({
      name: 'articles',
      displayName: 'Articles',
      singleton: false,
      primaryKeyType: 'nanoid',
      deletedAt: null,
    });
    expect((await call('GET', '/api/v1/collections/articles')).json().data.icon).toBe('article');
    const patched = await call('PATCH', '/api/v1/collections/articles', { note: 'News', displayName: 'News articles' });
    expect(patched.json().data).toMatchObject({ note: 'News', displayName: 'News articles', icon: 'article' });
    await call('POST', '/api/v1/collections', { name: 'drafts' });
    expect((await call('DELETE', '/api/v1/collections/drafts')).statusCode).toBe(204);
    expect((await call('GET', '/api/v1/collections/drafts')).statusCode).toBe(404);
    expect((await call('GET', '/api/v1/collections')).json().data.map((c: { name: string }) => c.name)).toEqual([
      'articles',
    ]);
  });

  it('answers a duplicate name with 409 and a bad name with 400', async () => {
    expect((await call('POST', '/api/v1/collections', { name: 'articles' })).json().errors[0]).toMatchObject({
      code: 'CONFLICT',
      path: ['name'],
    });
    expect((await call('POST', '/api/v1/collections', { name: 'drafts' })).statusCode).toBe(409);
    const bad = await call('POST', '/api/v1/collections', { name: '1Bad-name', primaryKeyType: 'serial' });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().errors.map((e: { path: string[] }) => e.path.join('.'))).toEqual(
      expect.arrayContaining(['body.name', 'body.primaryKeyType']),
    );
  });

  it('keeps each site to its own schema', async () => {
    expect((await call('GET', '/api/v1/collections', undefined, 'other')).json().data).toEqual([]);
    expect((await call('GET', '/api/v1/collections/articles', undefined, 'other')).statusCode).toBe(404);
    expect((await call('PATCH', '/api/v1/collections/articles', { note: 'x' }, 'other')).statusCode).toBe(404);
    expect((await call('POST', '/api/v1/collections', { name: 'articles' }, 'other')).statusCode).toBe(201);
  });

  it('lets members read the schema and only site admins change it', async () => {
    expect((await call('GET', '/api/v1/collections', undefined, 'main', viewer)).statusCode).toBe(200);
    expect((await call('POST', '/api/v1/collections', { name: 'mine' }, 'main', viewer)).statusCode).toBe(403);
  });
});

describe('fields', () => {
  it('adds fields of every kind and lists them in order', async () => {
    expect(
      (await call('POST', '/api/v1/fields/articles', { field: 'title', type: 'string', required: true })).statusCode,
    ).toBe(201);
    const e = await call('POST', '/api/v1/fields/articles', {
      field: 'tone',
      type: 'enum',
      choices: ['calm', 'loud'],
      default: 'calm',
      sort: 0,
    });
    expect(e.json().data).toMatchObject({
      collection: 'articles',
      field: 'tone',
      type: 'enum',
      choices: ['calm', 'loud'],
      default: 'calm',
    });
    await call('POST', '/api/v1/fields/articles', { field: 'secret', type: 'text', encrypted: true });
    const list = await call('GET', '/api/v1/fields/articles');
    expect(list.json().data.map((f: { field: string }) => f.field)).toEqual(['tone', 'title', 'secret']);
  });

  it('validates enum choices, encryption and system names', async () => {
    const noChoices = await call('POST', '/api/v1/fields/articles', { field: 'mood', type: 'enum' });
    expect(noChoices.json().errors[0].path).toEqual(['body', 'choices']);
    const badDefault = await call('POST', '/api/v1/fields/articles', {
      field: 'mood',
      type: 'enum',
      choices: ['a'],
      default: 'b',
    });
    expect(badDefault.json().errors[0].path).toEqual(['body', 'default']);
    expect(
      (await call('POST', '/api/v1/fields/articles', { field: 'n', type: 'integer', encrypted: true })).statusCode,
    ).toBe(400);
    expect(
      (await call('POST', '/api/v1/fields/articles', { field: 'sort', type: 'integer' })).json().errors[0].path,
    ).toEqual(['field']);
    expect((await call('POST', '/api/v1/fields/articles', { field: 'title', type: 'text' })).statusCode).toBe(409);
    expect((await call('POST', '/api/v1/fields/nope', { field: 'x', type: 'text' })).statusCode).toBe(404);
  });

  it('updates a field config and deletes a field', async () => {
    const res = await call('PATCH', '/api/v1/fields/articles/title', { interface: 'input', options: { max: 80 } });
    expect(res.json().data).toMatchObject({
      field: 'title',
      type: 'string',
      interface: 'input',
      options: { max: 80 },
      required: true,
    });
    expect((await call('PATCH', '/api/v1/fields/articles/title', { type: 'text' })).statusCode).toBe(400);
    expect((await call('DELETE', '/api/v1/fields/articles/secret')).statusCode).toBe(204);
    expect((await call('GET', '/api/v1/fields/articles/secret')).statusCode).toBe(404);
  });
});

describe('relations', () => {
  it('declares an m2o relation whose target exists, and refuses one whose target does not', async () => {
    await call('POST', '/api/v1/collections', { name: 'authors' });
    await call('POST', '/api/v1/fields/articles', { field: 'author', type: 'string' });
    const bad = await call('POST', '/api/v1/relations', {
      kind: 'm2o',
      collection: 'articles',
      field: 'author',
      target: 'people',
    });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().errors[0].path).toEqual(['target']);
    const res = await call('POST', '/api/v1/relations', {
      kind: 'm2o',
      collection: 'articles',
      field: 'author',
      target: 'authors',
      onDelete: 'restrict',
    });
    expect(res.statusCode).toBe(201);
    const rel = res.json().data;
    expect(rel).toMatchObject({
      kind: 'm2o',
      manyCollection: 'articles',
      manyField: 'author',
      oneCollection: 'authors',
      onDelete: 'restrict',
    });
    expect(
      (
        await call('POST', '/api/v1/relations', {
          kind: 'm2o',
          collection: 'articles',
          field: 'author',
          target: 'authors',
        })
      ).statusCode,
    ).toBe(409);
    expect((await call('DELETE', '/api/v1/collections/authors')).statusCode).toBe(409);
    expect((await call('DELETE', '/api/v1/fields/articles/author')).statusCode).toBe(409);

    expect((await call('PATCH', `/api/v1/relations/${rel.id}`, { onDelete: 'cascade' })).json().data.onDelete).toBe(
      'cascade',
    );
    expect((await call('PATCH', `/api/v1/relations/${rel.id}`, { onDelete: 'cascade' }, 'other')).statusCode).toBe(404);
    expect((await call('GET', '/api/v1/relations', undefined, 'other')).json().data).toEqual([]);
    expect((await call('DELETE', `/api/v1/relations/${rel.id}`)).statusCode).toBe(204);
    expect((await call('GET', '/api/v1/relations')).json().data).toEqual([]);
  });

  it('needs a junction collection for m2m', async () => {
    await call('POST', '/api/v1/fields/articles', { field: 'tags', type: 'json' });
    const res = await call('POST', '/api/v1/relations', {
      kind: 'm2m',
      collection: 'articles',
      field: 'tags',
      target: 'authors',
    });
    expect(res.json().errors[0].path).toEqual(['junctionCollection']);
  });
});

describe('schema read model', () => {
  it('rebuilds from the log to exactly what the live projection shows', async () => {
    const snapshot = async () =>
      Promise.all(
        ['/api/v1/collections', '/api/v1/fields/articles', '/api/v1/relations'].map(async (u) =>
          (await call('GET', u)).json(),
        ),
      );
    const live = await snapshot();
    expect((await call('POST', '/api/v1/admin/projections/schema/rebuild')).statusCode).toBe(200);
    expect(await snapshot()).toEqual(live);
  });

  it('records a SchemaChanged event with every change', async () => {
    const events: { type: string }[] = [];
    for await (const e of t.deps.store.readStream('main/schema/main')) events.push(e);
    const changes = events.filter((e) => e.type !== 'SchemaChanged').length;
    expect(events.filter((e) => e.type === 'SchemaChanged')).toHaveLength(changes);
  });
});
