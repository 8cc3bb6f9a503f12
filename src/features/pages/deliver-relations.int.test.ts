import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/setup/app.ts';

let t: TestApp;
let admin: string;
type Method = 'GET' | 'POST' | 'PATCH' | 'DELETE';
const call = (method: Method, url: string, payload?: unknown, site = 'main') =>
  t.call({ method, url, as: admin, site, ...(payload !== undefined ? { payload: payload as object } : {}) });
const ok = async (method: Method, url: string, payload?: unknown, site = 'main') => {
  const res = await call(method, url, payload, site);
  expect(res.statusCode, `${method} ${url}: ${res.body}`).toBeLessThan(300);
  return res.statusCode === 204 ? null : res.json();
};
/** Anonymous: no token, no site header. */
const deliver = async (slug: string, site = 'main') => {
  const res = await t.call({ method: 'GET', url: `/api/v1/deliver/page/${site}/${slug}` });
  expect(res.statusCode, res.body).toBe(200);
  return res.json().data.items as Record<string, Record<string, unknown> | null>;
};
const page = (slug: string, blocks: object[], site = 'main') =>
  ok(
    'POST',
    '/api/v1/pages',
    { slug, title: slug, status: 'published', layoutConfig: { rows: [{ columns: [{ width: 12, blocks }] }] } },
    site,
  );
const block = (itemId: string, fields?: string[]) => ({
  type: 'item',
  collection: 'articles',
  itemId,
  ...(fields ? { fields } : {}),
});

/** articles —m2o→ authors —m2o→ countries; the public role reads authors' names (not their e-mail) and countries. */
beforeAll(async () => {
  t = await createTestApp();
  admin = await t.setup();
  await ok('POST', '/api/v1/sites', { id: 'second', name: 'Second' });
  const fields = async (c: string, list: string[], site = 'main') => {
    await ok('POST', '/api/v1/collections', { name: c }, site);
    for (const f of list) await ok('POST', `/api/v1/fields/${c}`, { field: f, type: 'string' }, site);
  };
  await fields('countries', ['name']);
  await fields('authors', ['name', 'email', 'country', 'reviewer']);
  await fields('articles', ['title', 'author']);
  await ok('POST', '/api/v1/relations', { kind: 'm2o', collection: 'authors', field: 'country', target: 'countries' });
  await ok('POST', '/api/v1/relations', { kind: 'm2o', collection: 'articles', field: 'author', target: 'authors' });
  await ok('POST', '/api/v1/items/countries', { id: 'fr', name: 'France' });
  await ok('POST', '/api/v1/items/authors', { id: 'ada', name: 'Ada', email: 'ada@example.com', country: 'fr' });
  await ok('POST', '/api/v1/items/articles', { id: 'a1', title: 'One', author: 'ada', status: 'published' });
  const policy = (await ok('POST', '/api/v1/policies', { name: 'Public authors' })).data.id;
  const rule = (body: object) => ok('POST', `/api/v1/policies/${policy}/permissions`, body);
  await rule({ collection: 'authors', action: 'read', fields: ['name', 'country', 'created_by'] });
  await rule({ collection: 'countries', action: 'read', fields: ['*'] });
  await ok('POST', `/api/v1/policies/${policy}/attach`, { role: 'public' });
  // The other site: its own authors, none readable by its public role.
  await fields('authors', ['name'], 'second');
  await fields('articles', ['title', 'author'], 'second');
  await ok(
    'POST',
    '/api/v1/relations',
    { kind: 'm2o', collection: 'articles', field: 'author', target: 'authors' },
    'second',
  );
  await ok('POST', '/api/v1/items/authors', { id: 'ada', name: 'Other Ada' }, 'second');
  await ok(
    'POST',
    '/api/v1/items/articles',
    { id: 'a1', title: 'Other', author: 'ada', status: 'published' },
    'second',
  );
  await page('names', [block('a1', ['title', 'author.name', 'author.country.name'])]);
  await page('plain', [block('a1')]);
  await page('hidden', [block('a1', ['title', 'author.email', 'author.name'])]);
  await page('named', [block('a1', ['title', 'created_by', 'author.created_by'])]);
  await page('names', [block('a1', ['title', 'author.name'])], 'second');
});
afterAll(() => t.close());

describe('GET /api/v1/deliver/page/:site_id/:slug (anonymous)', () => {
  it("expands the relation paths a block names, under the public role's rules", async () => {
    const items = await deliver('names');
    expect(items['articles/a1']).toEqual({
      id: 'a1',
      title: 'One',
      author: { id: 'ada', name: 'Ada', country: { id: 'fr', name: 'France' } },
    });
  });

  it('drops at every level the fields the public role may not read', async () => {
    const items = await deliver('hidden');
    expect(items['articles/a1']).toEqual({ id: 'a1', title: 'One', author: { id: 'ada', name: 'Ada' } });
  });

  it('never sends the user ids of a record a block does not name', async () => {
    const item = (await deliver('plain'))['articles/a1']!;
    expect(item).toMatchObject({ id: 'a1', title: 'One', author: 'ada', status: 'published' });
    for (const key of ['created_by', 'updated_by', 'deleted_by']) expect(item).not.toHaveProperty(key);
    const named = (await deliver('named'))['articles/a1']!;
    expect(named.created_by).toEqual(expect.any(String));
    expect(named.author).toEqual({ id: 'ada', created_by: expect.any(String) });
  });

  it("reads the related items of the page's own site only, as its public role may", async () => {
    const items = await deliver('names', 'second');
    // The public role of `second` reads no authors: the relation is not expanded.
    expect(items['articles/a1']).toEqual({ id: 'a1', title: 'Other', author: null });
  });

  it('refuses a block path that is not a field path', async () => {
    const bad = {
      slug: 'bad',
      title: 'Bad',
      layoutConfig: { rows: [{ columns: [{ width: 12, blocks: [block('a1', ['author..name'])] }] }] },
    };
    const res = await call('POST', '/api/v1/pages', bad);
    expect(res.statusCode).toBe(400);
  });

  it('delivers a related item changed since at once (the page is not served stale)', async () => {
    expect((await deliver('names'))['articles/a1']!.author).toMatchObject({ name: 'Ada' });
    await ok('PATCH', '/api/v1/items/authors/ada', { name: 'Ada L.' });
    expect((await deliver('names'))['articles/a1']!.author).toMatchObject({ name: 'Ada L.' });
  });
});
