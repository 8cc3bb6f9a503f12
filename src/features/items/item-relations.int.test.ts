import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/setup/app.ts';

let t: TestApp;
let admin: string;
const call = (method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, payload?: unknown, site = 'main') =>
  t.call({ method, url, payload: payload as object, as: admin, site });
const list = async (query: string, site = 'main') => {
  const res = await call('GET', `/api/v1/items/articles?${query}`, undefined, site);
  expect(res.statusCode, res.body).toBe(200);
  return res.json();
};

/** authors ←m2o— articles —o2m→ comments; articles —m2m (article_tags)→ tags; articles.related —m2a→ any. */
async function seedSchema(site: string) {
  const field = (c: string, f: string, type: string, extra = {}) =>
    call('POST', `/api/v1/fields/${c}`, { field: f, type, ...extra }, site);
  for (const c of ['authors', 'articles', 'comments', 'tags', 'article_tags'])
    await call('POST', '/api/v1/collections', { name: c }, site);
  await field('authors', 'name', 'string');
  await field('articles', 'title', 'string');
  await field('articles', 'price', 'decimal');
  await field('articles', 'category', 'string');
  await field('articles', 'author', 'string');
  await field('articles', 'comments', 'json');
  await field('articles', 'tags', 'json');
  await field('articles', 'related', 'json');
  await field('comments', 'body', 'text');
  await field('comments', 'article', 'string');
  await field('comments', 'rank', 'integer');
  await field('tags', 'label', 'string');
  await field('article_tags', 'articles_id', 'string');
  await field('article_tags', 'tags_id', 'string');
  const rel = async (body: object) =>
    expect((await call('POST', '/api/v1/relations', body, site)).statusCode).toBe(201);
  await rel({ kind: 'm2o', collection: 'articles', field: 'author', target: 'authors' });
  await rel({ kind: 'm2o', collection: 'comments', field: 'article', target: 'articles' });
  await rel({ kind: 'o2m', collection: 'articles', field: 'comments', target: 'comments', targetField: 'article' });
  await rel({ kind: 'm2m', collection: 'articles', field: 'tags', target: 'tags', junctionCollection: 'article_tags' });
  await rel({ kind: 'm2a', collection: 'articles', field: 'related' });
}

beforeAll(async () => {
  t = await createTestApp();
  admin = await t.setup();
  await call('POST', '/api/v1/sites', { id: 'other', name: 'Other' });
  for (const site of ['main', 'other']) await seedSchema(site);
  const post = (c: string, body: object, site = 'main') => call('POST', `/api/v1/items/${c}`, body, site);
  await post('authors', [
    { id: 'ada', name: 'Ada' },
    { id: 'bob', name: 'Bob' },
  ]);
  await post('articles', [
    {
      id: 'a1',
      title: 'One',
      price: 10,
      category: 'x',
      author: 'ada',
      related: [{ collection: 'authors', item: 'bob' }],
    },
    { id: 'a2', title: 'Two', price: 5, category: 'x', author: 'bob' },
    { id: 'a3', title: 'Three', price: 7.5, category: 'y', author: 'ada' },
    { id: 'a4', title: 'Four', category: 'y' },
  ]);
  await post('comments', [
    { id: 'c1', body: 'first on one', article: 'a1', rank: 2 },
    { id: 'c2', body: 'second on one', article: 'a1', rank: 1 },
    { id: 'c3', body: 'on two', article: 'a2', rank: 5 },
  ]);
  await post('tags', [
    { id: 't1', label: 'news' },
    { id: 't2', label: 'tech' },
  ]);
  await post('article_tags', [
    { articles_id: 'a1', tags_id: 't1' },
    { articles_id: 'a1', tags_id: 't2' },
    { articles_id: 'a3', tags_id: 't2' },
  ]);
  // Site "other" has an author with the same id and another name: it must never leak into site main.
  await post('authors', { id: 'ada', name: 'Other Ada' }, 'other');
  await post('articles', { id: 'a1', title: 'Other one', author: 'ada' }, 'other');
});
afterAll(() => t.close());

const ids = (body: { data: { id: string }[] }) => body.data.map((x) => x.id);

describe('relations in list queries', () => {
  it('expands an m2o path in fields, from the same site only', async () => {
    const body = await list('fields=title,author.name&sort=title');
    expect(body.data).toEqual([
      { id: 'a4', title: 'Four', author: null },
      { id: 'a1', title: 'One', author: { id: 'ada', name: 'Ada' } },
      { id: 'a3', title: 'Three', author: { id: 'ada', name: 'Ada' } },
      { id: 'a2', title: 'Two', author: { id: 'bob', name: 'Bob' } },
    ]);
    expect((await list('fields=author.*', 'other')).data[0].author.name).toBe('Other Ada');
  });

  it('lists o2m and m2m relations, with deep filter, sort and limit per parent', async () => {
    const body = await list('fields=id,comments.body,tags.label&filter[id][_in]=a1,a2,a4&sort=id');
    expect(body.data).toEqual([
      {
        id: 'a1',
        comments: [
          { id: 'c1', body: 'first on one' },
          { id: 'c2', body: 'second on one' },
        ],
        tags: [
          { id: 't1', label: 'news' },
          { id: 't2', label: 'tech' },
        ],
      },
      { id: 'a2', comments: [{ id: 'c3', body: 'on two' }], tags: [] },
      { id: 'a4', comments: [], tags: [] },
    ]);
    const deep = await list(
      'fields=id,comments.id&filter[id][_eq]=a1&deep[comments][_sort]=rank&deep[comments][_limit]=1',
    );
    expect(deep.data[0].comments).toEqual([{ id: 'c2' }]);
    const filtered = await list('fields=id,comments.id&filter[id][_eq]=a1&deep[comments][_filter][rank][_gt]=1');
    expect(filtered.data[0].comments).toEqual([{ id: 'c1' }]);
    expect((await list('fields=id,comments&filter[id][_eq]=a1')).data[0].comments).toEqual(['c1', 'c2']);
  });

  it('expands m2a entries per collection', async () => {
    const body = await list('fields=id,related.name&filter[id][_eq]=a1');
    expect(body.data[0].related).toEqual([{ collection: 'authors', item: { id: 'bob', name: 'Bob' } }]);
  });

  it('filters through m2o, o2m and m2m relations, dotted or nested', async () => {
    expect(ids(await list('filter[author.name][_eq]=Ada&sort=id'))).toEqual(['a1', 'a3']);
    expect(ids(await list(`filter=${encodeURIComponent('{"author":{"name":{"_eq":"Bob"}}}')}`))).toEqual(['a2']);
    expect(ids(await list('filter[comments.rank][_gte]=5'))).toEqual(['a2']);
    expect(ids(await list('filter[tags.label][_eq]=tech&sort=id'))).toEqual(['a1', 'a3']);
    expect(ids(await list('filter[author.name][_eq]=Other Ada'))).toEqual([]);
  });

  it('sorts by an m2o path', async () => {
    expect(ids(await list('sort=-author.name,id'))).toEqual(['a4', 'a2', 'a1', 'a3']);
  });

  it('rejects unknown fields, paths through non-relations and m2a filters', async () => {
    for (const [q, path] of [
      ['fields=author.nope', 'fields'],
      ['fields=title.x', 'fields'],
      ['filter[author.nope][_eq]=1', 'filter'],
      ['filter[related.name][_eq]=1', 'filter'],
      ['sort=comments.rank', 'sort'],
      ['deep[comments][_limit]=0', 'query'],
    ]) {
      const res = await call('GET', `/api/v1/items/articles?${q}`);
      expect(res.statusCode, q).toBe(400);
      expect(res.json().errors[0]).toMatchObject({ code: 'VALIDATION_FAILED', path: expect.arrayContaining([path]) });
    }
  });
});

describe('aggregates, search and meta', () => {
  it('counts, sums and averages, grouped', async () => {
    expect((await list('aggregate[count]=*')).data).toEqual([{ count: 4 }]);
    const grouped = await list('aggregate[count]=*&aggregate[sum]=price&aggregate[max]=price&groupBy=category');
    expect(grouped.data).toEqual([
      { category: 'x', count: 2, sum: { price: 15 }, max: { price: 10 } },
      { category: 'y', count: 2, sum: { price: 7.5 }, max: { price: 7.5 } },
    ]);
    const filtered = await list('aggregate[avg]=price&aggregate[countDistinct]=author&filter[category][_eq]=x');
    expect(filtered.data).toEqual([{ avg: { price: 7.5 }, countDistinct: { author: 2 } }]);
    expect((await list('aggregate[count]=*', 'other')).data).toEqual([{ count: 1 }]);
  });

  it('rejects aggregates that do not fit the field', async () => {
    for (const q of ['aggregate[sum]=title', 'aggregate[median]=price', 'aggregate[sum]=*', 'groupBy=nope']) {
      const res = await call('GET', `/api/v1/items/articles?${q}`);
      expect(res.statusCode, q).toBe(400);
      expect(res.json().errors[0].code).toBe('VALIDATION_FAILED');
    }
  });

  it('searches text values by whole words, case-insensitively, and reports filter_count', async () => {
    expect(ids(await list('search=THREE&sort=id'))).toEqual(['a3']);
    expect(ids(await list('search=TH&sort=id'))).toEqual([]);
    const body = await list('search=one%20or%20two%20or%20four&meta=filter_count,total_count&limit=1');
    expect(body.meta).toEqual({ total: 3, filter_count: 3, limit: 1, offset: 0 });
    expect((await list('meta=bogus'.replace('bogus', 'none'))).meta).toEqual({ limit: 25, offset: 0 });
    expect((await call('GET', '/api/v1/items/articles?meta=bogus')).statusCode).toBe(400);
  });
});
