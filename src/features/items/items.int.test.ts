import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/setup/app.ts';
import { createUser } from '../../../test/setup/users.ts';

let t: TestApp;
let admin: string;
let viewer: string;
const call = (
  method: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE',
  url: string,
  payload?: unknown,
  site = 'main',
  as = admin,
) => t.call({ method, url, payload: payload as object, as, site });

beforeAll(async () => {
  t = await createTestApp();
  admin = await t.setup();
  await call('POST', '/api/v1/sites', { id: 'other', name: 'Other' });
  viewer = await createUser(t, 'viewer@example.com', 'Viewer-pass-1234', { main: 'viewer' });
  for (const site of ['main', 'other']) {
    await call('POST', '/api/v1/collections', { name: 'articles' }, site);
    await call('POST', '/api/v1/fields/articles', { field: 'title', type: 'string', required: true }, site);
    await call('POST', '/api/v1/fields/articles', { field: 'views', type: 'integer', default: 0 }, site);
    await call('POST', '/api/v1/fields/articles', { field: 'tone', type: 'enum', choices: ['calm', 'loud'] }, site);
    await call('POST', '/api/v1/fields/articles', { field: 'meta', type: 'json' }, site);
    await call('POST', '/api/v1/fields/articles', { field: 'published_at', type: 'datetime' }, site);
  }
});
afterAll(() => t.close());

describe('item CRUD', () => {
  it('creates an item with a random id, defaults and audit fields, then reads it', async () => {
    const res = await call('POST', '/api/v1/items/articles', { title: 'Hello', status: 'draft' });
    expect(res.statusCode).toBe(201);
    const item = res.json().data;
    expect(item).toMatchObject({ title: 'Hello', views: 0, status: 'draft', created_by: expect.any(String) });
    expect(item.id).toMatch(/^[A-Za-z0-9]{21}$/);
    // A read also names the schema's fields without a value (null); the write answer only what was written.
    const read = (await call('GET', `/api/v1/items/articles/${item.id}`)).json().data;
    expect(read).toMatchObject(item);
    for (const [k, v] of Object.entries(read)) if (!Object.hasOwn(item, k)) expect(v).toBeNull();
  });

  it('lists every failing field of an invalid item with 400 VALIDATION_FAILED', async () => {
    const res = await call('POST', '/api/v1/items/articles', { views: 'many', tone: 'angry', extra: 1 });
    expect(res.statusCode).toBe(400);
    const paths = res.json().errors.map((e: { path: string[] }) => e.path.join('.'));
    expect(paths.sort()).toEqual(['extra', 'title', 'tone', 'views']);
  });

  it('creates a bulk array all or nothing', async () => {
    const bad = await call('POST', '/api/v1/items/articles', [{ title: 'A' }, { views: 1 }]);
    expect(bad.statusCode).toBe(400);
    expect(bad.json().errors[0].path).toEqual(['1', 'title']);
    const before = (await call('GET', '/api/v1/items/articles?filter[title][_eq]=A')).json().meta.total;
    expect(before).toBe(0);
    const ok = await call('POST', '/api/v1/items/articles', [
      { title: 'A', views: 5 },
      { title: 'B', views: 7 },
    ]);
    expect(ok.statusCode).toBe(201);
    expect(ok.json().data.map((i: { title: string }) => i.title)).toEqual(['A', 'B']);
    // An id that exists already refuses the whole array: the new item before it is not written either.
    const taken = await call('POST', '/api/v1/items/articles', [
      { id: 'fresh-one', title: 'C' },
      { id: ok.json().data[0].id, title: 'D' },
    ]);
    expect(taken.statusCode).toBe(409);
    expect((await call('GET', '/api/v1/items/articles/fresh-one')).statusCode).toBe(404);
  });

  it('patches, replaces and soft-deletes', async () => {
    const id = (await call('POST', '/api/v1/items/articles', { title: 'Edit me', tone: 'calm' })).json().data.id;
    const patched = await call('PATCH', `/api/v1/items/articles/${id}`, { views: 3 });
    expect(patched.json().data).toMatchObject({ title: 'Edit me', tone: 'calm', views: 3 });
    expect((await call('PATCH', `/api/v1/items/articles/${id}`, { views: 'x' })).statusCode).toBe(400);
    const replaced = await call('PUT', `/api/v1/items/articles/${id}`, { title: 'Replaced' });
    expect(replaced.json().data.tone).toBeNull();
    expect((await call('DELETE', `/api/v1/items/articles/${id}`)).statusCode).toBe(204);
    expect((await call('GET', `/api/v1/items/articles/${id}`)).json().errors[0].code).toBe('RECORD_NOT_FOUND');
    expect((await call('PATCH', `/api/v1/items/articles/${id}`, { views: 1 })).statusCode).toBe(404);
  });

  it('answers a PATCH or PUT with the item exactly as a read right after shows it', async () => {
    const id = (await call('POST', '/api/v1/items/articles', { title: 'Same', meta: { a: [1, 'x'] } })).json().data.id;
    for (const [method, body] of [
      ['PATCH', { views: 7, published_at: '2025-01-02T03:04:05.678Z' }],
      ['PUT', { title: 'Whole', tone: 'loud' }],
      ['PATCH', { views: 7 }],
    ] as const) {
      const written = await call(method, `/api/v1/items/articles/${id}`, body);
      expect(written.statusCode).toBe(200);
      const read = await call('GET', `/api/v1/items/articles/${id}`);
      expect(written.json().data).toEqual(read.json().data);
    }
  });

  it('answers each of many concurrent PATCHes of one item with that write, at its own version', async () => {
    const id = (await call('POST', '/api/v1/items/articles', { title: 'Hot' })).json().data.id;
    const answers = await Promise.all(
      Array.from({ length: 12 }, (_, i) => call('PATCH', `/api/v1/items/articles/${id}`, { title: `t${i}`, views: i })),
    );
    const seen = answers.map((a, i) => {
      expect(a.statusCode).toBe(200);
      // Its own values, not those of a write queued after it.
      expect(a.json().data).toMatchObject({ title: `t${i}`, views: i });
      return [a.json().data.title, a.json().data.views, a.json().meta.version] as [string, number, number];
    });
    // Versions 2..13, one each.
    expect(seen.map((x) => x[2]).sort((a, b) => a - b)).toEqual(Array.from({ length: 12 }, (_, i) => i + 2));
    const last = seen.find((x) => x[2] === 13)!;
    expect((await call('GET', `/api/v1/items/articles/${id}`)).json().data).toMatchObject({ title: last[0] });
  });

  it('keeps items to their site and writes to writers', async () => {
    const id = (await call('POST', '/api/v1/items/articles', { title: 'Mine' })).json().data.id;
    expect((await call('GET', `/api/v1/items/articles/${id}`, undefined, 'other')).statusCode).toBe(404);
    expect((await call('PATCH', `/api/v1/items/articles/${id}`, { title: 'x' }, 'other')).statusCode).toBe(404);
    expect(
      (await call('GET', `/api/v1/items/articles?filter[title][_eq]=Mine`, undefined, 'other')).json().meta.total,
    ).toBe(0);
    expect((await call('GET', `/api/v1/items/articles/${id}`, undefined, 'main', viewer)).statusCode).toBe(200);
    expect((await call('POST', '/api/v1/items/articles', { title: 'No' }, 'main', viewer)).statusCode).toBe(403);
    expect((await call('GET', '/api/v1/items/nope')).statusCode).toBe(404);
  });
});

describe('GET /api/v1/items/:collection', () => {
  beforeAll(async () => {
    const rows = Array.from({ length: 12 }, (_, i) => ({
      title: `Q${i}`,
      views: i * 10,
      status: i % 2 ? 'published' : 'draft',
      meta: { tags: i % 3 ? ['x'] : ['y'], depth: { n: i } },
      published_at: `2024-01-${String(i + 1).padStart(2, '0')}T00:00:00Z`,
    }));
    await call('POST', '/api/v1/collections', { name: 'q' });
    for (const [f, type] of [
      ['title', 'string'],
      ['views', 'integer'],
      ['meta', 'json'],
      ['published_at', 'datetime'],
    ]) {
      await call('POST', '/api/v1/fields/q', { field: f, type });
    }
    await call('POST', '/api/v1/items/q', rows);
  });
  const list = async (qs: string) => (await call('GET', `/api/v1/items/q?${qs}`)).json();
  const titles = (body: { data: { title: string }[] }) => body.data.map((i) => i.title);

  it('filters in bracket form with typed values, sorts and pages', async () => {
    const body = await list('filter[status][_eq]=published&filter[views][_gt]=30&sort=-views&limit=2');
    expect(titles(body)).toEqual(['Q11', 'Q9']);
    expect(body.meta).toEqual({ total: 4, limit: 2, offset: 0 });
    expect(
      titles(await list('filter[status][_eq]=published&filter[views][_gt]=30&sort=-views&limit=2&page=2')),
    ).toEqual(['Q7', 'Q5']);
  });

  it('lets the JSON form win over the bracket form', async () => {
    const f = encodeURIComponent(JSON.stringify({ views: { _lte: 10 } }));
    expect(titles(await list(`filter=${f}&filter[views][_gt]=100&sort=views`))).toEqual(['Q0', 'Q1']);
  });

  it('supports logical groups, lists, text, null and JSON operators', async () => {
    expect(titles(await list('filter[_or][0][views][_eq]=0&filter[_or][1][views][_eq]=110&sort=views'))).toEqual([
      'Q0',
      'Q11',
    ]);
    expect(titles(await list('filter[views][_in]=20,40&sort=views'))).toEqual(['Q2', 'Q4']);
    expect(titles(await list('filter[views][_between]=100,200&sort=views'))).toEqual(['Q10', 'Q11']);
    expect(titles(await list('filter[title][_icontains]=q1&sort=views'))).toEqual(['Q1', 'Q10', 'Q11']);
    expect(titles(await list('filter[meta.depth.n][_eq]=3'))).toEqual(['Q3']);
    const jc = encodeURIComponent(JSON.stringify({ meta: { _json_contains: { tags: ['y'] } } }));
    expect(titles(await list(`filter=${jc}&sort=views`))).toEqual(['Q0', 'Q3', 'Q6', 'Q9']);
    expect((await list('filter[published_at][_gte]=2024-01-11T00:00:00Z&sort=views')).meta.total).toBe(2);
    expect((await list('filter[meta][_null]=true')).meta.total).toBe(0);
  });

  it('selects fields and skips the count with meta=none', async () => {
    const body = await list('fields=title&limit=1&sort=views&meta=none');
    expect(body.data).toEqual([{ id: expect.any(String), title: 'Q0' }]);
    expect(body.meta).toEqual({ limit: 1, offset: 0 });
  });

  it('answers bad queries with 400 and ignores malformed bracket keys', async () => {
    const bad = async (qs: string) => (await call('GET', `/api/v1/items/q?${qs}`)).statusCode;
    expect(await bad('filter={nope')).toBe(400);
    expect(await bad('filter[views][_gt]=abc')).toBe(400);
    expect(await bad('filter[unknown][_eq]=1')).toBe(400);
    expect(await bad('filter[views][_regex]=1')).toBe(400);
    expect(await bad('limit=500')).toBe(400);
    expect(await bad('sort=-nope')).toBe(400);
    expect(await bad('filter[a.b.c.d.e.f.g.h.i][_eq]=1')).toBe(400);
    expect((await list('filter[views]=3&filter]x[=1')).meta.total).toBe(12);
  });
});
