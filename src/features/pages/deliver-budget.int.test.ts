import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/setup/app.ts';
import { EXPANSION_LIMIT, expansionStats } from '../../../projections/item-documents/item-expand.ts';
import { deliveryStats } from './delivery.resolve.ts';

let t: TestApp;
let admin: string;
type Method = 'GET' | 'POST' | 'PATCH' | 'DELETE';
const ok = async (method: Method, url: string, payload?: unknown) => {
  const res = await t.call({
    method,
    url,
    as: admin,
    site: 'main',
    ...(payload ? { payload: payload as object } : {}),
  });
  expect(res.statusCode, `${method} ${url}: ${res.body}`).toBeLessThan(300);
  return res.json();
};
/** Anonymous: no token, no site header. */
const deliver = (slug: string) => t.call({ method: 'GET', url: `/api/v1/deliver/page/main/${slug}` });
const page = (slug: string, blocks: object[]) =>
  ok('POST', '/api/v1/pages', {
    slug,
    title: slug,
    status: 'published',
    layoutConfig: { rows: [{ columns: [{ width: 12, blocks }] }] },
  });
const CLIQUE = 10;
const ROOTS = 50;
/**
 * Two hops through the clique: 10 + 100 related rows per root and 111 records in its answer, so the 50 roots
 * together fetch 5 500 rows (over the 5 000 of one request) and answer 5 550 records (within the 10 000).
 */
const PATH = 'friends.friends.name';
/** Each root its own set of paths (the second names no field), so each is expanded on its own. */
const block = (i: number) => ({ type: 'item', collection: 'people', itemId: `r${i}`, fields: [PATH, `x${i}`] });

/** people —m2m (people_friends)→ people: a clique of 10, and 50 published roots who each befriend all of it. */
beforeAll(async () => {
  t = await createTestApp();
  admin = await t.setup();
  for (const c of ['people', 'people_friends']) await ok('POST', '/api/v1/collections', { name: c });
  await ok('POST', '/api/v1/fields/people', { field: 'name', type: 'string' });
  await ok('POST', '/api/v1/fields/people', { field: 'friends', type: 'json' });
  for (const f of ['from_id', 'to_id']) await ok('POST', '/api/v1/fields/people_friends', { field: f, type: 'string' });
  await ok('POST', '/api/v1/relations', {
    kind: 'm2m',
    collection: 'people',
    field: 'friends',
    target: 'people',
    junctionCollection: 'people_friends',
    junctionField: 'from_id',
    targetField: 'to_id',
  });
  const clique = Array.from({ length: CLIQUE }, (_, i) => `c${i}`);
  const roots = Array.from({ length: ROOTS }, (_, i) => `r${i}`);
  await ok('POST', '/api/v1/items/people', [
    ...clique.map((id) => ({ id, name: id })),
    ...roots.map((id) => ({ id, name: id, status: 'published' })),
  ]);
  const links = [...clique, ...roots].flatMap((from) => clique.map((to) => ({ from_id: from, to_id: to })));
  for (let i = 0; i < links.length; i += 500) await ok('POST', '/api/v1/items/people_friends', links.slice(i, i + 500));
  const policy = (await ok('POST', '/api/v1/policies', { name: 'Public people' })).data.id;
  await ok('POST', `/api/v1/policies/${policy}/permissions`, { collection: 'people', action: 'read', fields: ['*'] });
  await ok('POST', `/api/v1/policies/${policy}/attach`, { role: 'public' });
  await page('one', [block(0)]);
  await page(
    'many',
    Array.from({ length: ROOTS }, (_, i) => block(i)),
  );
  await page('shared', [block(1)]);
});
afterAll(() => t.close());

describe('GET /api/v1/deliver/page/:site_id/:slug (anonymous)', () => {
  describe('the expansion budget', () => {
    it('delivers a block within the budget', async () => {
      const res = await deliver('one');
      expect(res.statusCode, res.body.slice(0, 300)).toBe(200);
      const r0 = res.json().data.items['people/r0'];
      expect(r0.friends).toHaveLength(CLIQUE);
      expect(r0.friends[0].friends).toHaveLength(CLIQUE);
    });

    it('refuses a page whose blocks together exceed the budget of one render, each within it alone', async () => {
      const before = expansionStats.rowsFetched;
      const res = await deliver('many');
      expect(res.statusCode, res.body.slice(0, 300)).toBe(422);
      expect(res.json().errors).toEqual([
        expect.objectContaining({
          code: 'VALIDATION_FAILED',
          path: ['layoutConfig'],
          extensions: expect.objectContaining({ reason: 'expansion_limit', limit: EXPANSION_LIMIT }),
        }),
      ]);
      // The render stops at the budget (the batch that crossed it included), not after every block.
      expect(expansionStats.rowsFetched - before).toBeLessThanOrEqual(EXPANSION_LIMIT + CLIQUE * CLIQUE);
    });
  });

  describe('on a cache miss', () => {
    it('renders an uncached page once for concurrent requests, which all get it', async () => {
      const before = deliveryStats.renders;
      const answers = await Promise.all(Array.from({ length: 8 }, () => deliver('shared')));
      for (const a of answers) expect(a.statusCode, a.body.slice(0, 300)).toBe(200);
      expect(new Set(answers.map((a) => a.headers.etag)).size).toBe(1);
      expect(deliveryStats.renders - before).toBe(1);
    });
  });
});
