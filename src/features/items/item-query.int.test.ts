import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/setup/app.ts';

/** Every list parameter of GET /api/v1/items/:collection, and every way to get one wrong (spec "Filter rules"). */
let t: TestApp;
let admin: string;
const call = (method: 'GET' | 'POST' | 'DELETE', url: string, payload?: unknown, site = 'main') =>
  t.call({ method, url, payload: payload as object, as: admin, site });

const DEEP = { a: { b: { c: { d: { e: { f: { g: 1 } } } } } } };
const POSTS = [
  {
    title: 'A',
    views: 1,
    price: '1.50',
    flag: true,
    code: '007',
    at: '2024-01-01T00:00:00Z',
    meta: { n: 1.5, code: '007', tags: ['x', 'y'], ...DEEP },
  },
  {
    title: 'B',
    views: 10,
    price: 2,
    flag: false,
    code: '7',
    at: '2024-02-01T00:00:00Z',
    meta: { n: '1.5', code: 7, tags: ['y'] },
    big: '9007199254740993',
  },
  { title: 'true', views: 20, flag: null, meta: null, big: '9007199254740992' },
  { title: 'C', views: 15, price: '-0.5', flag: true, meta: { k: null, tags: ['z'] } },
  { title: 'D', views: 10, meta: { n: 3 } },
];
let ids: Record<string, string> = {};

beforeAll(async () => {
  t = await createTestApp();
  admin = await t.setup();
  await call('POST', '/api/v1/sites', { id: 'other', name: 'Other' });
  await call('POST', '/api/v1/collections', { name: 'secret' }, 'other');
  await call('POST', '/api/v1/collections', { name: 'posts' });
  const fields = { title: 'string', views: 'integer', price: 'decimal', big: 'bigInteger', flag: 'boolean' };
  for (const [field, type] of [...Object.entries(fields), ['code', 'string'], ['at', 'datetime'], ['meta', 'json']])
    await call('POST', '/api/v1/fields/posts', { field, type });
  const created = (await call('POST', '/api/v1/items/posts', [...POSTS, { title: 'gone', views: 1 }])).json().data;
  ids = Object.fromEntries(created.map((i: { id: string; title: string }) => [i.title, i.id]));
  await call('DELETE', `/api/v1/items/posts/${ids.gone}`);
  await call('POST', '/api/v1/collections', { name: 'many' });
  await call('POST', '/api/v1/fields/many', { field: 'n', type: 'integer' });
  await call(
    'POST',
    '/api/v1/items/many',
    Array.from({ length: 30 }, (_, i) => ({ n: i + 1 })),
  );
});
afterAll(() => t.close());

const get = (qs: string, collection = 'posts') => call('GET', `/api/v1/items/${collection}?${qs}`);
const json = (filter: unknown) => `filter=${encodeURIComponent(JSON.stringify(filter))}`;
/** The titles a query lists, in title order unless it sorts. */
const titles = async (qs: string) => {
  const res = await get(qs.includes('sort=') ? qs : `${qs}&sort=title`);
  expect(res.statusCode, res.body).toBe(200);
  return (res.json().data as { title: string }[]).map((i) => i.title);
};

describe('GET /api/v1/items/:collection', () => {
  describe('bracket form', () => {
    it('coerces true, false, null and clean numbers, and keeps leading zeros as strings', async () => {
      expect(await titles('filter[flag][_eq]=true')).toEqual(['A', 'C']);
      expect(await titles('filter[flag][_eq]=false')).toEqual(['B']);
      expect(await titles('filter[flag][_eq]=null')).toEqual(['D', 'true']);
      expect(await titles('filter[views][_eq]=10')).toEqual(['B', 'D']);
      // In JSON a number and a string differ: 1.5 became a number, 007 stayed a string.
      expect(await titles('filter[meta.n][_eq]=1.5')).toEqual(['A']);
      expect(await titles('filter[meta.code][_eq]=007')).toEqual(['A']);
      expect(await titles('filter[code][_eq]=007')).toEqual(['A']);
      expect(await titles('filter[price][_eq]=1.5')).toEqual(['A']);
    });

    it('compares a coerced value with a string field as text', async () => {
      expect(await titles('filter[title][_eq]=true')).toEqual(['true']);
      expect(await titles('filter[code][_eq]=7')).toEqual(['B']);
    });

    it('keeps a number a double cannot hold exactly, so that a bigInteger compares exactly', async () => {
      expect(await titles('filter[big][_eq]=9007199254740993')).toEqual(['B']);
      expect(await titles('filter[big][_gt]=9007199254740992')).toEqual(['B']);
    });

    it('splits array operators on commas', async () => {
      expect(await titles('filter[views][_in]=1,20')).toEqual(['A', 'true']);
      expect(await titles('filter[views][_nin]=1,20')).toEqual(['B', 'C', 'D']);
      expect(await titles('filter[views][_between]=10,15')).toEqual(['B', 'C', 'D']);
      expect(await titles('filter[meta.tags][_has_any_keys]=x,z')).toEqual(['A', 'C']);
      expect(await titles('filter[meta.tags][_has_all_keys]=x,y')).toEqual(['A']);
    });

    it('builds logical groups from index segments, nested too', async () => {
      expect(await titles('filter[_or][0][views][_eq]=1&filter[_or][1][title][_eq]=B')).toEqual(['A', 'B']);
      const nested = 'filter[_and][0][_or][0][views][_eq]=10&filter[_and][0][_or][1][flag][_eq]=true';
      expect(await titles(`${nested}&filter[_and][1][title][_neq]=D`)).toEqual(['A', 'B', 'C']);
    });

    it('ignores malformed keys', async () => {
      const keys = ['filter[views]=3', 'filter]x[=1', 'filter[views][eq]=3', 'filter[][_eq]=1', 'filter[views[_eq]=1'];
      expect(await titles(keys.join('&'))).toEqual(['A', 'B', 'C', 'D', 'true']);
    });
  });

  describe('null', () => {
    it('counts a missing value, null and JSON null as null', async () => {
      expect(await titles('filter[meta][_null]=true')).toEqual(['true']);
      expect(await titles('filter[meta.k][_null]=true')).toEqual(['A', 'B', 'C', 'D', 'true']);
      expect(await titles('filter[meta.k][_nnull]=true')).toEqual([]);
      expect(await titles(json({ 'meta.k': { _eq: null } }))).toEqual(['A', 'B', 'C', 'D', 'true']);
    });

    it('never matches null with a comparison, but does with _neq and _nin', async () => {
      expect(await titles(json({ 'meta.n': { _lt: 5 } }))).toEqual(['A', 'D']);
      expect(await titles(json({ 'meta.k': { _lt: 5 } }))).toEqual([]);
      expect(await titles('filter[flag][_neq]=true')).toEqual(['B', 'D', 'true']);
      expect(await titles('filter[flag][_nin]=true')).toEqual(['B', 'D', 'true']);
    });
  });

  describe('JSON form', () => {
    it('wins when both forms are sent', async () => {
      expect(await titles(`${json({ views: { _gt: 10 } })}&filter[views][_lt]=10`)).toEqual(['C', 'true']);
    });

    it.each([
      ['invalid JSON', 'filter={views'],
      ['an array', json([{ views: { _eq: 1 } }])],
      ['a string', json('views')],
    ])('answers %s with 400 VALIDATION_FAILED', async (_, qs) => {
      const res = await get(qs);
      expect(res.statusCode).toBe(400);
      expect(res.json().errors[0]).toMatchObject({ code: 'VALIDATION_FAILED', path: ['query', 'filter'] });
    });
  });

  describe('paging and counts', () => {
    const meta = async (qs: string) => (await get(qs, 'many')).json().meta;

    it('returns 25 items by default, with total, limit and offset', async () => {
      const res = await get('', 'many');
      expect(res.json().data).toHaveLength(25);
      expect(res.json().meta).toEqual({ total: 30, limit: 25, offset: 0 });
    });

    it('pages by page or offset, and skips the count with meta=none', async () => {
      const ns = async (qs: string) => ((await get(qs, 'many')).json().data as { n: number }[]).map((i) => i.n);
      expect(await ns('sort=n&limit=4&page=3')).toEqual([9, 10, 11, 12]);
      expect(await meta('sort=n&limit=4&page=3')).toEqual({ total: 30, limit: 4, offset: 8 });
      expect(await ns('sort=n&limit=3&offset=28')).toEqual([29, 30]);
      expect(await meta('limit=200&meta=none')).toEqual({ limit: 200, offset: 0 });
      expect(await meta('limit=1&meta=total_count')).toEqual({ total: 30, limit: 1, offset: 0 });
    });

    it.each([
      ['limit=0', 'limit'],
      ['limit=201', 'limit'],
      ['limit=ten', 'limit'],
      ['limit=2.5', 'limit'],
      ['page=0', 'page'],
      ['offset=-1', 'offset'],
      ['meta=everything', 'meta'],
    ])('answers %s with 400 VALIDATION_FAILED at query.%s', async (qs, key) => {
      const res = await get(qs, 'many');
      expect(res.statusCode).toBe(400);
      expect(res.json().errors[0]).toMatchObject({ code: 'VALIDATION_FAILED', path: ['query', key] });
    });
  });

  describe('fields and sort', () => {
    it('picks the keys fields names, always with the id, and all of them for *', async () => {
      const res = await get('fields=title,views&filter[title][_eq]=A');
      expect(res.json().data).toEqual([{ id: ids.A, title: 'A', views: 1 }]);
      const all = (await get('fields=*&filter[title][_eq]=A')).json().data[0];
      expect(all).toMatchObject({ id: ids.A, title: 'A', views: 1, code: '007', meta: POSTS[0]!.meta });
      expect(all).toHaveProperty('created_at');
    });

    it('sorts descending with - and by several keys; nulls last ascending, first descending', async () => {
      expect(await titles('sort=-views,title')).toEqual(['true', 'C', 'B', 'D', 'A']);
      expect(await titles('sort=views,-title')).toEqual(['A', 'D', 'B', 'C', 'true']);
      expect(await titles('sort=-flag,title')).toEqual(['D', 'true', 'A', 'C', 'B']);
    });
  });

  describe('bad filters', () => {
    const deep9 = 'meta.a.b.c.d.e.f.g.h';
    const clauses = (n: number) => ({ _or: Array.from({ length: n }, (_, i) => ({ views: { _eq: i } })) });

    it('accepts a JSON path of depth 8 and 100 clauses', async () => {
      expect(await titles(json({ 'meta.a.b.c.d.e.f.g': { _eq: 1 } }))).toEqual(['A']);
      expect(await titles(json(clauses(100)))).toEqual(['A', 'B', 'C', 'D', 'true']);
    });

    it.each([
      ['an unknown field', 'filter[nope][_eq]=1', ['filter', 'nope']],
      ['an unknown operator', 'filter[views][_regex]=1', ['filter', 'views', '_regex']],
      ['a path deeper than 8', `filter[${deep9}][_eq]=1`, ['filter', deep9]],
      ['a path into a non-JSON field', 'filter[title.x][_eq]=1', ['filter', 'title.x']],
      ['more than 100 clauses', json(clauses(101)), ['filter', '_or', '100', 'views']],
      ['a word for an integer', json({ views: { _gt: 'abc' } }), ['filter', 'views', '_gt']],
      ['a word for a decimal', 'filter[price][_lt]=cheap', ['filter', 'price', '_lt']],
      ['a word for a boolean', 'filter[flag][_eq]=yes', ['filter', 'flag', '_eq']],
      ['a number for a date-time', json({ at: { _gt: '1' } }), ['filter', 'at', '_gt']],
      ['February 30', json({ at: { _gt: '2024-02-30' } }), ['filter', 'at', '_gt']],
      ['a single _between value', json({ views: { _between: [1] } }), ['filter', 'views', '_between']],
      ['_in without a list', json({ views: { _in: 1 } }), ['filter', 'views', '_in']],
      ['a field without an operator object', json({ views: 1 }), ['filter', 'views']],
    ])('answers %s with 400 VALIDATION_FAILED and its path', async (_, qs, path) => {
      const res = await get(qs);
      expect(res.statusCode, res.body).toBe(400);
      expect(res.json().errors[0]).toMatchObject({ code: 'VALIDATION_FAILED', path });
    });

    it('answers an unknown sort or fields key with 400 naming it', async () => {
      const sort = await get('sort=title,-nope');
      expect(sort.statusCode).toBe(400);
      expect(sort.json().errors[0]).toMatchObject({ code: 'VALIDATION_FAILED', path: ['sort', 'nope'] });
      const fields = await get('fields=title,nope');
      expect(fields.statusCode).toBe(400);
      expect(fields.json().errors[0]).toMatchObject({ code: 'VALIDATION_FAILED', path: ['fields'] });
      expect(fields.json().errors[0].message).toContain('nope');
    });
  });

  describe('visibility', () => {
    it('answers an unknown collection and another site’s collection with the same 404 NOT_FOUND', async () => {
      const unknown = await get('', 'nowhere');
      const foreign = await get('', 'secret');
      for (const res of [unknown, foreign]) {
        expect(res.statusCode).toBe(404);
        expect(res.json().errors[0]).toMatchObject({ code: 'NOT_FOUND', path: ['collection'] });
      }
      expect((await call('GET', '/api/v1/items/secret', undefined, 'other')).statusCode).toBe(200);
    });

    it('never lists a soft-deleted item, whatever the filter', async () => {
      expect(await titles(`filter[id][_eq]=${ids.gone}`)).toEqual([]);
      expect(await titles('filter[title][_eq]=gone')).toEqual([]);
      expect((await get('')).json().meta.total).toBe(POSTS.length);
    });
  });
});
