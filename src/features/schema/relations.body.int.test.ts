import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/setup/app.ts';

let t: TestApp;
let admin: string;
const call = (method: 'GET' | 'POST', url: string, site: string, payload?: unknown) =>
  t.call({ method, url, payload: payload as object, as: admin, site });

/** The same collections and carrier fields on a site, so relations can move between sites. */
async function schemaOn(site: string): Promise<void> {
  for (const name of ['authors', 'articles', 'tags', 'articles_tags', 'notes'])
    await call('POST', '/api/v1/collections', site, { name });
  const fields: Array<[string, string, string]> = [
    ['articles', 'author', 'string'],
    ['authors', 'articles', 'json'],
    ['articles', 'tags', 'json'],
    ['articles_tags', 'articles_id', 'string'],
    ['articles_tags', 'tags_id', 'string'],
    ['notes', 'about', 'json'],
    ['notes', 'author', 'string'],
  ];
  for (const [collection, field, type] of fields)
    await call('POST', `/api/v1/fields/${collection}`, site, { field, type });
}

const withoutId = ({ id: _id, ...rest }: Record<string, unknown>) => rest;

beforeAll(async () => {
  t = await createTestApp();
  admin = await t.setup();
  await call('POST', '/api/v1/sites', 'main', { id: 'copy', name: 'Copy' });
  await schemaOn('main');
  await schemaOn('copy');
  const short = [
    { kind: 'm2o', collection: 'articles', field: 'author', target: 'authors', onDelete: 'restrict' },
    { kind: 'o2m', collection: 'authors', field: 'articles', target: 'articles', targetField: 'author' },
    { kind: 'm2m', collection: 'articles', field: 'tags', target: 'tags', junctionCollection: 'articles_tags' },
    { kind: 'm2a', collection: 'notes', field: 'about' },
  ];
  for (const body of short) {
    const res = await call('POST', '/api/v1/relations', 'main', body);
    if (res.statusCode !== 201) throw new Error(`relation not created: ${res.body}`);
  }
});
afterAll(() => t.close());

describe('POST /api/v1/relations', () => {
  it('accepts a relation exactly as GET returns it from another site, giving an equal relation', async () => {
    const source = (await call('GET', '/api/v1/relations', 'main')).json().data as Array<Record<string, unknown>>;
    expect(source.map((r) => r.kind).sort()).toEqual(['m2a', 'm2m', 'm2o', 'o2m']);
    for (const relation of source) {
      const res = await call('POST', '/api/v1/relations', 'copy', relation);
      expect(res.statusCode, res.body).toBe(201);
      expect(res.json().data.id).not.toBe(relation.id);
    }
    const copied = (await call('GET', '/api/v1/relations', 'copy')).json().data as Array<Record<string, unknown>>;
    const key = (r: Record<string, unknown>) => `${String(r.collection)}.${String(r.field)}`;
    const sorted = (rs: Array<Record<string, unknown>>) =>
      rs.map(withoutId).sort((a, b) => key(a).localeCompare(key(b)));
    expect(sorted(copied)).toEqual(sorted(source));
  });

  it('accepts the record form alone (many and one sides without collection and field)', async () => {
    const res = await call('POST', '/api/v1/relations', 'copy', {
      kind: 'm2o',
      manyCollection: 'notes',
      manyField: 'author',
      oneCollection: 'authors',
    });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json().data).toMatchObject({ collection: 'notes', field: 'author', target: 'authors' });
  });

  it('refuses a record form that contradicts the short form with 400 naming the key', async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [
        { kind: 'm2o', collection: 'notes', field: 'author', target: 'authors', manyCollection: 'articles' },
        'collection',
      ],
      [{ kind: 'm2o', collection: 'notes', field: 'author', target: 'authors', oneCollection: 'tags' }, 'target'],
      [{ kind: 'm2o', collection: 'notes', field: 'author', target: 'authors', oneField: 'x' }, 'oneField'],
      [{ kind: 'o2m', collection: 'authors', field: 'articles', target: 'articles', manyField: 'author' }, 'manyField'],
      [
        {
          kind: 'm2m',
          collection: 'articles',
          field: 'tags',
          target: 'tags',
          junctionCollection: 'articles_tags',
          manyCollection: 'tags',
        },
        'manyCollection',
      ],
      [{ kind: 'm2o', manyCollection: 'notes', oneCollection: 'authors' }, 'field'],
    ];
    for (const [body, path] of cases) {
      const res = await call('POST', '/api/v1/relations', 'main', body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(res.json().errors[0]).toMatchObject({ code: 'VALIDATION_FAILED', path: [path] });
    }
  });
});
