import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/setup/app.ts';
import { createUser } from '../../../test/setup/users.ts';

/**
 * Keyset pagination (`after=<id>`): walking a list page by page from the last id of each page gives exactly the list
 * an offset walk gives, for any order (nulls, ties, several keys, a sort through a relation); an anchor the caller
 * may not read is refused like one that does not exist.
 */
let t: TestApp;
let admin: string;
/** Reads only the notes whose `label` is not "hidden". */
let reader: string;
const call = (method: 'GET' | 'POST', url: string, payload?: unknown, as = admin, site = 'main') =>
  t.call({ method, url, payload: payload as object, as, site });
const ok = async (method: 'GET' | 'POST', url: string, payload?: unknown, as = admin) => {
  const res = await call(method, url, payload, as);
  expect(res.statusCode, `${method} ${url}: ${res.body}`).toBeLessThan(300);
  return res.json();
};

const N = 23;
beforeAll(async () => {
  t = await createTestApp();
  admin = await t.setup();
  await ok('POST', '/api/v1/sites', { id: 'other', name: 'Other' });
  await ok('POST', '/api/v1/collections', { name: 'people' });
  await ok('POST', '/api/v1/fields/people', { field: 'name', type: 'string' });
  await ok('POST', '/api/v1/collections', { name: 'notes' });
  for (const [field, type] of [
    ['rank', 'integer'],
    ['label', 'string'],
    ['owner', 'string'],
    ['extra', 'json'],
  ])
    await ok('POST', '/api/v1/fields/notes', { field, type });
  await ok('POST', '/api/v1/relations', { kind: 'm2o', collection: 'notes', field: 'owner', target: 'people' });
  await ok('POST', '/api/v1/items/people', [
    { id: 'p1', name: 'Ada' },
    { id: 'p2', name: 'Bob' },
    { id: 'p3', name: null },
  ]);
  // Ties and nulls everywhere: ranks repeat, labels and owners are missing on some.
  await ok(
    'POST',
    '/api/v1/items/notes',
    Array.from({ length: N }, (_, i) => ({
      id: `n${String(i).padStart(2, '0')}`,
      rank: i % 5 === 0 ? null : i % 4,
      label: i % 6 === 0 ? 'hidden' : i % 3 === 0 ? null : ['b', 'a', 'c'][i % 3],
      owner: i % 7 === 0 ? null : ['p1', 'p2', 'p3'][i % 3],
      extra: i % 2 ? { w: i % 3 } : i % 4 ? 'text' : null,
    })),
  );
  const role = (await ok('POST', '/api/v1/roles', { name: 'Reader' })).data.id;
  const policy = (await ok('POST', '/api/v1/policies', { name: 'Not hidden' })).data.id;
  await ok('POST', `/api/v1/policies/${policy}/permissions`, {
    collection: 'notes',
    action: 'read',
    fields: ['*'],
    conditions: { label: { _neq: 'hidden' } },
  });
  await ok('POST', `/api/v1/policies/${policy}/permissions`, { collection: 'people', action: 'read', fields: ['*'] });
  await ok('POST', `/api/v1/policies/${policy}/attach`, { role });
  reader = await createUser(t, 'reader@example.com', 'Keyset-reader-31!', { main: role });
});
afterAll(() => t.close());

const ids = (body: { data: { id: string }[] }) => body.data.map((r) => r.id);

async function walk(query: string, limit: number, as = admin): Promise<string[]> {
  const seen: string[] = [];
  for (let guard = 0; guard < 100; guard++) {
    const after = seen.length ? `&after=${seen.at(-1)}` : '';
    const page = await ok('GET', `/api/v1/items/notes?limit=${limit}${query}${after}`, undefined, as);
    expect(page.meta).toMatchObject({ limit, offset: 0 });
    seen.push(...ids(page));
    if (page.data.length < limit) return seen;
  }
  throw new Error('no end');
}

describe('GET /api/v1/items/:collection?after=<id>', () => {
  it('walks to the same list as one page, for any order of keys, directions and nulls', async () => {
    const keys = ['rank', 'label', 'owner.name', 'extra', 'created_at', 'id'];
    await fc.assert(
      fc.asyncProperty(
        fc.uniqueArray(fc.constantFrom(...keys), { minLength: 0, maxLength: 3 }),
        fc.array(fc.boolean(), { minLength: 3, maxLength: 3 }),
        fc.integer({ min: 1, max: 6 }),
        fc.constantFrom('', '&filter[rank][_nnull]=true', '&filter[label][_in]=a,b'),
        async (sortKeys, desc, limit, filter) => {
          const sort = sortKeys.map((k, i) => (desc[i] ? `-${k}` : k)).join(',');
          const q = `${sort ? `&sort=${sort}` : ''}${filter}`;
          const whole = ids(await ok('GET', `/api/v1/items/notes?limit=200${q}`));
          expect(await walk(q, limit)).toEqual(whole);
        },
      ),
      { numRuns: 40 },
    );
  });

  it('keeps the count of the whole list and the reader’s own rows on every page', async () => {
    const page = await ok('GET', '/api/v1/items/notes?limit=3&sort=rank&after=n01');
    expect(page.meta.total).toBe(N);
    const readable = ids(await ok('GET', '/api/v1/items/notes?limit=200&sort=-rank', undefined, reader));
    expect(readable.length).toBeLessThan(N);
    expect(await walk('&sort=-rank', 4, reader)).toEqual(readable);
  });

  it('refuses an anchor the caller may not read as one that does not exist, and odd combinations', async () => {
    const refusal = async (url: string, as = admin) => {
      const res = await call('GET', url, undefined, as);
      expect(res.statusCode, res.body).toBe(400);
      expect(res.json().errors[0]).toMatchObject({ code: 'VALIDATION_FAILED', path: ['query', 'after'] });
      return res.json().errors[0].message as string;
    };
    // n00 is hidden from the reader: the same answer as an id nobody has.
    const hidden = await refusal('/api/v1/items/notes?limit=2&after=n00', reader);
    expect(await refusal('/api/v1/items/notes?limit=2&after=nope', reader)).toBe(hidden);
    expect((await call('GET', '/api/v1/items/notes?limit=2&after=n00')).statusCode).toBe(200);
    // An item of another site's collection of the same name is not an anchor here.
    await ok('POST', '/api/v1/collections', { name: 'notes' }, admin).catch(() => undefined);
    const foreign = await call('POST', '/api/v1/collections', { name: 'notes' }, admin, 'other');
    expect(foreign.statusCode).toBeLessThan(300);
    expect((await call('POST', '/api/v1/items/notes', { id: 'far' }, admin, 'other')).statusCode).toBeLessThan(300);
    await refusal('/api/v1/items/notes?after=far');
    // The last item: an empty page, not an error.
    const last = ids(await ok('GET', '/api/v1/items/notes?limit=200')).at(-1);
    expect((await ok('GET', `/api/v1/items/notes?after=${last}`)).data).toEqual([]);
    await refusal('/api/v1/items/notes?after=n01&offset=2');
    await refusal('/api/v1/items/notes?after=n01&page=2');
    await refusal('/api/v1/items/notes?after=bad%20id');
    // Hostile values: a NUL byte, a prototype key, a 10 000-character id, a huge number; each a 400, never a 5xx.
    await refusal('/api/v1/items/notes?after=n01%00');
    await refusal('/api/v1/items/notes?after=__proto__');
    await refusal('/api/v1/items/notes?after=constructor');
    await refusal(`/api/v1/items/notes?after=${'x'.repeat(10_000)}`);
    await refusal('/api/v1/items/notes?after=99999999999999999999999999999');
    // Anonymous and another site's callers never reach the anchor.
    expect((await t.call({ method: 'GET', url: '/api/v1/items/notes?after=n01', site: 'main' })).statusCode).toBe(401);
    const stranger = await createUser(t, 'stranger@example.com', 'Keyset-stranger-31!', { other: 'editor' });
    const foreignCall = await call('GET', '/api/v1/items/notes?after=n01', undefined, stranger, 'main');
    expect([403, 404]).toContain(foreignCall.statusCode);
    expect(foreignCall.json().data).toBeUndefined();
    await refusal('/api/v1/items/notes?after=n01&aggregate[count]=*');
    await refusal('/api/v1/items/notes?after=n01&asOf=2030-01-01');
  });
});
