import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/setup/app.ts';
import { createUser } from '../../../test/setup/users.ts';

/**
 * Offset pages past the first are read in two steps (the page's ids, then their rows): every page of every order
 * holds exactly the items of the same slice of the whole list, as the keyset walk does, under the caller's row
 * filter, with `fields`, expansion, counts, the locale and soft-deleted items unchanged.
 */
let t: TestApp;
let admin: string;
/** Reads only the notes whose `label` is not "hidden". */
let reader: string;
type Body = { data: Record<string, unknown>[]; meta: Record<string, unknown> };
const ok = async (method: 'GET' | 'POST' | 'DELETE', url: string, payload?: unknown, as = admin) => {
  const res = await t.call({ method, url, payload: payload as object, as, site: 'main' });
  expect(res.statusCode, `${method} ${url}: ${res.body}`).toBeLessThan(300);
  return res.statusCode === 204 ? null : (res.json() as Body);
};
const get = async (url: string, as = admin, headers: Record<string, string> = {}) => {
  const res = await t.call({ method: 'GET', url, as, site: 'main', headers });
  expect(res.statusCode, `GET ${url}: ${res.body}`).toBe(200);
  return res.json() as Body;
};
const ids = (body: Body) => body.data.map((r) => r.id as string);

const N = 47;
/** Ids out of creation order, so the default order (creation, then id) differs from the ids' own. */
const idOf = (i: number) => `n${String((i * 17) % N).padStart(2, '0')}`;

beforeAll(async () => {
  t = await createTestApp();
  admin = await t.setup();
  await ok('POST', '/api/v1/collections', { name: 'people' });
  await ok('POST', '/api/v1/fields/people', { field: 'name', type: 'string' });
  await ok('POST', '/api/v1/collections', { name: 'notes' });
  for (const [field, type] of [
    ['rank', 'integer'],
    ['label', 'string'],
    ['owner', 'string'],
    ['extra', 'json'],
    ['translations', 'json'],
  ])
    await ok('POST', '/api/v1/fields/notes', { field, type });
  await ok('POST', '/api/v1/relations', { kind: 'm2o', collection: 'notes', field: 'owner', target: 'people' });
  await ok('POST', '/api/v1/items/people', [
    { id: 'p1', name: 'Ada' },
    { id: 'p2', name: 'Bob' },
    { id: 'p3', name: null },
  ]);
  // Three writes, so creation times repeat within each and differ across; ties and nulls in every field.
  const note = (i: number) => ({
    id: idOf(i),
    rank: i % 5 === 0 ? null : i % 4,
    label: i % 6 === 0 ? 'hidden' : i % 3 === 0 ? null : ['b', 'a', 'c'][i % 3],
    owner: i % 7 === 0 ? null : ['p1', 'p2', 'p3'][i % 3],
    extra: i % 2 ? { w: i % 3 } : i % 4 ? 'text' : null,
    translations: { de: { label: `de-${i}` } },
  });
  for (const [from, to] of [
    [0, 20],
    [20, 21],
    [21, N],
  ])
    await ok(
      'POST',
      '/api/v1/items/notes',
      Array.from({ length: to! - from! }, (_, k) => note(from! + k)),
    );
  await ok('DELETE', `/api/v1/items/notes/${idOf(9)}`);
  await ok('DELETE', `/api/v1/items/notes/${idOf(30)}`);
  const role = (await ok('POST', '/api/v1/roles', { name: 'Reader' }))!.data as unknown as { id: string };
  const policy = (await ok('POST', '/api/v1/policies', { name: 'Not hidden' }))!.data as unknown as { id: string };
  await ok('POST', `/api/v1/policies/${policy.id}/permissions`, {
    collection: 'notes',
    action: 'read',
    fields: ['*'],
    conditions: { label: { _neq: 'hidden' } },
  });
  await ok('POST', `/api/v1/policies/${policy.id}/permissions`, {
    collection: 'people',
    action: 'read',
    fields: ['*'],
  });
  await ok('POST', `/api/v1/policies/${policy.id}/attach`, { role: role.id });
  reader = await createUser(t, 'deep-reader@example.com', 'Deep-pages-reader-7!', { main: role.id });
});
afterAll(() => t.close());

/** Every page of `limit` from offset 0 (and one page past the end), joined. */
async function offsetWalk(query: string, limit: number, as: string): Promise<string[]> {
  const seen: string[] = [];
  for (let offset = 0; offset <= N; offset += limit) {
    const page = await get(`/api/v1/items/notes?limit=${limit}&offset=${offset}${query}`, as);
    expect(page.meta).toMatchObject({ limit, offset });
    seen.push(...ids(page));
  }
  return seen;
}

async function keysetWalk(query: string, limit: number, as: string): Promise<string[]> {
  const seen: string[] = [];
  for (let step = 0; step <= N; step++) {
    const after = seen.length ? `&after=${seen.at(-1)}` : '';
    const page = await get(`/api/v1/items/notes?limit=${limit}${query}${after}`, as);
    seen.push(...ids(page));
    if (page.data.length < limit) return seen;
  }
  throw new Error('no end');
}

describe('GET /api/v1/items/:collection?offset=<deep>', () => {
  const orders: [string, string][] = [
    ['the default order', ''],
    ['a field going down', '&sort=-rank'],
    ['a nullable field', '&sort=label,-extra'],
    ['a relation', '&sort=owner.name,-id'],
    ['a filter', '&sort=-created_at&filter[rank][_nnull]=true'],
    ['a filter through a relation', '&sort=extra&filter[owner][name][_nnull]=true'],
  ];
  for (const [what, query] of orders)
    it(`pages ${what} into the whole list, as the keyset walk does, for the admin and under a row filter`, async () => {
      for (const as of [admin, reader]) {
        const whole = ids(await get(`/api/v1/items/notes?limit=200${query}`, as));
        expect(whole.length).toBeGreaterThan(as === admin ? 20 : 15);
        if (as === reader) expect(whole).not.toContain(idOf(6));
        expect(await offsetWalk(query, 4, as)).toEqual(whole);
        expect(await offsetWalk(query, 9, as)).toEqual(whole);
        expect(await keysetWalk(query, 6, as)).toEqual(whole);
        for (const offset of [1, whole.length - 3, whole.length - 1, whole.length, whole.length + 5]) {
          const page = await get(`/api/v1/items/notes?limit=2&offset=${offset}${query}`, as);
          expect(ids(page), `offset ${offset}`).toEqual(whole.slice(offset, offset + 2));
        }
      }
    });

  it('answers a deep page with the fields, expansion, counts and locale of the whole list', async () => {
    const query = '&sort=-rank&fields=id,rank,label,owner.name&meta=total_count,filter_count&filter[rank][_nnull]=true';
    const de = { 'x-svc-locale': 'de' };
    for (const as of [admin, reader]) {
      const whole = await get(`/api/v1/items/notes?limit=200${query}`, as, de);
      const page = await get(`/api/v1/items/notes?limit=5&offset=11${query}`, as, de);
      expect(page.data).toEqual(whole.data.slice(11, 16));
      expect(page.meta).toEqual({ ...whole.meta, limit: 5, offset: 11 });
      expect(page.data[0]).toMatchObject({ label: expect.stringMatching(/^de-/), owner: expect.anything() });
    }
  });

  it('pages the soft-deleted items too when an admin asks for them', async () => {
    const query = '&withDeleted=true&fields=id,deleted_at';
    const whole = await get(`/api/v1/items/notes?limit=200${query}`);
    expect(whole.data).toHaveLength(N);
    expect(whole.data.filter((r) => r.deleted_at !== null).map((r) => r.id)).toEqual(
      expect.arrayContaining([idOf(9), idOf(30)]),
    );
    expect(await offsetWalk(query, 7, admin)).toEqual(ids(whole));
    const deep = await get(`/api/v1/items/notes?limit=3&offset=40${query}`);
    expect(deep.data).toEqual(whole.data.slice(40, 43));
    expect(await offsetWalk('', 7, admin)).toEqual(ids(whole).filter((id) => id !== idOf(9) && id !== idOf(30)));
  });
});
