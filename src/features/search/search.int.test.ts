import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/setup/app.ts';
import { createUser } from '../../../test/setup/users.ts';

let t: TestApp;
let admin: string;
/** Reads published articles' title and status only; nothing of places. */
let reader: string;
/** Administers site `other` only. */
let otherAdmin: string;
const PASSWORD = 'Search-perm-2718!';
type Method = 'GET' | 'POST' | 'PATCH' | 'DELETE';
const call = (as: string | undefined, method: Method, url: string, payload?: object, site = 'main') =>
  t.call({ method, url, payload, as, site });
const ok = async (as: string, method: Method, url: string, payload?: object, site = 'main') => {
  const res = await call(as, method, url, payload, site);
  expect(res.statusCode, `${method} ${url}: ${res.body}`).toBeLessThan(300);
  return res.statusCode === 204 ? null : res.json();
};
const search = (as: string | undefined, params: Record<string, string>, site = 'main') =>
  call(as, 'GET', `/api/v1/search?${new URLSearchParams(params).toString()}`, undefined, site);
interface Hit {
  collection: string;
  id: string;
  score: number;
  highlights: { field: string; snippet: string }[];
  item: Record<string, unknown>;
}
const hits = async (as: string, q: string, extra: Record<string, string> = {}, site = 'main'): Promise<Hit[]> => {
  const res = await search(as, { q, ...extra }, site);
  expect(res.statusCode, `${q}: ${res.body}`).toBe(200);
  return res.json().data as Hit[];
};
const ids = async (as: string, q: string, extra: Record<string, string> = {}, site = 'main') =>
  (await hits(as, q, extra, site)).map((h) => h.id);

beforeAll(async () => {
  t = await createTestApp();
  admin = await t.setup();
  await ok(admin, 'POST', '/api/v1/sites', { id: 'other', name: 'Other' });
  const fields = async (c: string, list: [string, string, object?][], site = 'main') => {
    await ok(admin, 'POST', '/api/v1/collections', { name: c }, site);
    for (const [field, type, extra] of list)
      await ok(admin, 'POST', `/api/v1/fields/${c}`, { field, type, ...extra }, site);
  };
  await fields('articles', [
    ['title', 'string'],
    ['body', 'text'],
    ['secret', 'string'],
    ['code', 'string', { searchable: false }],
  ]);
  await fields('places', [
    ['name', 'string'],
    ['note', 'text'],
  ]);
  await fields('notes', [['text', 'text']], 'other');
  await ok(admin, 'POST', '/api/v1/items/articles', [
    { id: 'hn', title: 'Đường phố Hà Nội', body: 'Một bài viết về thủ đô', status: 'published' },
    { id: 'hoa', title: 'Hoà bình', body: 'peace and quiet', status: 'published' },
    { id: 'thuy', title: 'Thuý Kiều', body: 'truyện Kiều', status: 'published' },
    { id: 'draft', title: 'Bản nháp về Hà Nội', body: 'draft text', status: 'draft' },
    { id: 'secret', title: 'Plain title', secret: 'zebracorn', body: 'nothing', status: 'published' },
    { id: 'code', title: 'Coded', code: 'quokkaword', status: 'published' },
  ]);
  await ok(admin, 'POST', '/api/v1/items/places', [{ id: 'p1', name: 'Hồ Hoàn Kiếm', note: 'Hà Nội center' }]);
  await ok(admin, 'POST', '/api/v1/items/notes', [{ id: 'n1', text: 'xylophonist unique word' }], 'other');
  const role = (await ok(admin, 'POST', '/api/v1/roles', { name: 'Reader' })).data.id;
  const policy = (await ok(admin, 'POST', '/api/v1/policies', { name: 'Published' })).data.id;
  await ok(admin, 'POST', `/api/v1/policies/${policy}/permissions`, {
    collection: 'articles',
    action: 'read',
    fields: ['title', 'body', 'status'],
    conditions: { status: { _eq: 'published' } },
  });
  await ok(admin, 'POST', `/api/v1/policies/${policy}/attach`, { role });
  reader = await createUser(t, 'reader@example.com', PASSWORD, { main: role });
  otherAdmin = await createUser(t, 'boss@example.com', PASSWORD, { other: 'admin' });
});
afterAll(() => t.close());

describe('GET /api/v1/search', () => {
  it('finds Vietnamese text without its diacritics, and highlights it as written', async () => {
    const found = await hits(admin, 'duong pho ha noi');
    expect(found.map((h) => h.id)).toEqual(['hn']);
    expect(found[0]).toMatchObject({ collection: 'articles', item: { id: 'hn', title: 'Đường phố Hà Nội' } });
    expect(found[0]!.highlights).toEqual([
      { field: 'title', snippet: '<mark>Đường</mark> <mark>phố</mark> <mark>Hà</mark> <mark>Nội</mark>' },
    ]);
    expect((await hits(reader, 'ha noi', { collection: 'articles' }))[0]!.highlights).toEqual([
      { field: 'title', snippet: 'Đường phố <mark>Hà</mark> <mark>Nội</mark>' },
    ]);
  });

  it('takes decomposed (NFD) words and either tone-mark placement', async () => {
    expect(await ids(admin, 'Đường phố'.normalize('NFD'))).toEqual(['hn']);
    expect(await ids(admin, 'hòa bình')).toEqual(['hoa']);
    expect(await ids(admin, 'thúy')).toEqual(['thuy']);
  });

  it('searches every collection the caller may read, or the one named', async () => {
    expect((await hits(admin, 'ha noi')).map((h) => `${h.collection}/${h.id}`).sort()).toEqual([
      'articles/draft',
      'articles/hn',
      'places/p1',
    ]);
    expect((await ids(admin, 'ha noi', { collection: 'places' })).sort()).toEqual(['p1']);
    const body = (await search(admin, { q: 'ha noi', limit: '1', offset: '1' })).json();
    expect(body.meta).toEqual({ total: 3, limit: 1, offset: 1 });
    expect(body.data).toHaveLength(1);
  });

  it('refuses bad parameters with 400 VALIDATION_FAILED, a 10 000-character query among them', async () => {
    const long = await search(admin, { q: 'x'.repeat(10_000) });
    expect(long.statusCode).toBe(400);
    expect(long.json().errors[0]).toMatchObject({
      code: 'VALIDATION_FAILED',
      path: ['query', 'q'],
      extensions: { reason: 'query_too_long', limit: 1000 },
    });
    for (const params of [
      {},
      { q: '   ' },
      { q: 'a', limit: '201' },
      { q: 'a', limit: '0' },
      { q: 'a', offset: '-1' },
    ]) {
      const res = await search(admin, params as Record<string, string>);
      expect(res.statusCode, JSON.stringify(params)).toBe(400);
      expect(res.json().errors[0].code).toBe('VALIDATION_FAILED');
    }
    expect((await search(admin, { q: 'a', collection: 'nope' })).statusCode).toBe(404);
    expect((await search(admin, { q: 'a', collection: 'svc_files' })).statusCode).toBe(404);
  });

  it('answers 200 for stop words, punctuation, unbalanced quotes and SQL-looking words', async () => {
    for (const q of ['the and of', '!!!', '"unbalanced', 'a"b"', "'; drop table x; --", '%_\\', '\\', '-', '(', 'or'])
      expect((await search(admin, { q })).statusCode, q).toBe(200);
    expect(await ids(admin, '!!!')).toEqual([]);
    expect(await ids(admin, "'; drop table articles; --")).toEqual([]);
    expect((await search(admin, { q: 'ha noi' })).statusCode).toBe(200);
    // A query that an empty text satisfies (`x or -x`) would match and rank every row: it finds nothing.
    expect(await ids(admin, 'zzz or -zzz')).toEqual([]);
    expect(await ids(admin, 'hà or -hà')).toEqual([]);
  });

  it('never matches, scores or highlights a field the caller may not read', async () => {
    const own = await hits(admin, 'zebracorn');
    expect(own.map((h) => h.id)).toEqual(['secret']);
    expect(own[0]!.highlights).toEqual([{ field: 'secret', snippet: '<mark>zebracorn</mark>' }]);
    expect(await ids(reader, 'zebracorn')).toEqual([]);
    const plain = await hits(reader, 'plain zebracorn or nothing');
    expect(plain.map((h) => h.id)).toEqual(['secret']);
    expect(plain[0]!.highlights.map((h) => h.field).sort()).toEqual(['body']);
    expect(plain[0]!.item).toMatchObject({ id: 'secret', title: 'Plain title', body: 'nothing', status: 'published' });
    expect(plain[0]!.item).not.toHaveProperty('secret');
  });

  it('leaves out fields that are not searchable', async () => {
    expect(await ids(admin, 'quokkaword')).toEqual([]);
  });

  it("keeps to the caller's rows and collections", async () => {
    expect(await ids(reader, 'ha noi')).toEqual(['hn']);
    expect(await ids(reader, 'hoan kiem')).toEqual([]);
    expect((await search(reader, { q: 'hoan kiem', collection: 'places' })).statusCode).toBe(403);
    expect((await search(undefined, { q: 'ha noi' })).statusCode).toBe(401);
  });

  it("never finds another site's items", async () => {
    expect(await ids(admin, 'xylophonist')).toEqual([]);
    expect(await ids(otherAdmin, 'xylophonist', {}, 'other')).toEqual(['n1']);
    expect(await ids(otherAdmin, 'zebracorn', {}, 'other')).toEqual([]);
    expect((await search(otherAdmin, { q: 'zebracorn' }, 'main')).statusCode).toBeGreaterThanOrEqual(400);
  });

  it('forgets a deleted item, and finds it again once restored', async () => {
    await ok(admin, 'POST', '/api/v1/items/articles', { id: 'tmp', title: 'ephemeral wombat', status: 'published' });
    expect(await ids(reader, 'wombat')).toEqual(['tmp']);
    await ok(admin, 'DELETE', '/api/v1/items/articles/tmp');
    expect(await ids(admin, 'wombat')).toEqual([]);
    await ok(admin, 'POST', '/api/v1/items/articles/tmp/restore');
    expect(await ids(admin, 'wombat')).toEqual(['tmp']);
  });

  it('stops and starts finding a field as its searchable is turned off and on', async () => {
    expect(await ids(admin, 'thu do')).toEqual(['hn']);
    await ok(admin, 'PATCH', '/api/v1/fields/articles/body', { searchable: false });
    expect(await ids(admin, 'thu do')).toEqual([]);
    await ok(admin, 'PATCH', '/api/v1/fields/articles/body', { searchable: true });
    expect(await ids(admin, 'thu do')).toEqual(['hn']);
  });

  it('gives the same hits after the search read model is rebuilt', async () => {
    const before = await hits(admin, 'ha noi or hoa or kieu');
    const res = await call(admin, 'POST', '/api/v1/admin/projections/search/rebuild');
    expect(res.statusCode, res.body).toBe(200);
    expect(await hits(admin, 'ha noi or hoa or kieu')).toEqual(before);
  });
});

describe('searchable fields', () => {
  it('refuses searchable on types search cannot index and on sealed fields', async () => {
    for (const body of [
      { field: 'n', type: 'integer', searchable: true },
      { field: 'j', type: 'json', searchable: true },
      { field: 's', type: 'string', encrypted: true, searchable: true },
    ]) {
      const res = await call(admin, 'POST', '/api/v1/fields/places', body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(res.json().errors[0]).toMatchObject({
        code: 'VALIDATION_FAILED',
        path: expect.arrayContaining(['searchable']),
      });
    }
    await ok(admin, 'POST', '/api/v1/fields/places', { field: 'code', type: 'string', encrypted: true });
    const res = await call(admin, 'PATCH', '/api/v1/fields/places/code', { searchable: true });
    expect(res.statusCode).toBe(400);
    expect(res.json().errors[0]).toMatchObject({ code: 'VALIDATION_FAILED', path: ['searchable'] });
  });
});

describe('GET /api/v1/items/:collection?search=', () => {
  it('finds accented text with an unaccented term, within the read rules', async () => {
    const list = async (as: string, q: string) =>
      (
        (await ok(as, 'GET', `/api/v1/items/articles?search=${encodeURIComponent(q)}&sort=id`)).data as {
          id: string;
        }[]
      ).map((r) => r.id);
    expect(await list(admin, 'ha noi')).toEqual(['draft', 'hn']);
    expect(await list(reader, 'ha noi')).toEqual(['hn']);
    expect(await list(reader, 'zebracorn')).toEqual([]);
    expect(await list(admin, '"pho ha"')).toEqual(['hn']);
  });
});
