import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/setup/app.ts';
import { EXPANSION_LIMIT, expansionStats } from '../../../projections/item-documents/item-expand.ts';

let t: TestApp;
let admin: string;
const call = (method: 'GET' | 'POST', url: string, payload?: unknown) =>
  t.call({ method, url, payload: payload as object, as: admin, site: 'main' });
const N = 20;

/** links —m2m (links_links: from_id → to_id)→ links: 20 items, each linked to all 20. */
beforeAll(async () => {
  t = await createTestApp();
  admin = await t.setup();
  for (const c of ['links', 'links_links']) await call('POST', '/api/v1/collections', { name: c });
  const field = (c: string, f: string, type: string) => call('POST', `/api/v1/fields/${c}`, { field: f, type });
  await field('links', 'title', 'string');
  await field('links', 'links', 'json');
  await field('links_links', 'from_id', 'string');
  await field('links_links', 'to_id', 'string');
  const rel = await call('POST', '/api/v1/relations', {
    kind: 'm2m',
    collection: 'links',
    field: 'links',
    target: 'links',
    junctionCollection: 'links_links',
    junctionField: 'from_id',
    targetField: 'to_id',
  });
  expect(rel.statusCode, rel.body).toBe(201);
  const ids = Array.from({ length: N }, (_, i) => `l${String(i).padStart(2, '0')}`);
  expect(
    (
      await call(
        'POST',
        '/api/v1/items/links',
        ids.map((id) => ({ id, title: id })),
      )
    ).statusCode,
  ).toBe(201);
  const rows = ids.flatMap((from) => ids.map((to) => ({ from_id: from, to_id: to })));
  for (let i = 0; i < rows.length; i += 100) {
    const res = await call('POST', '/api/v1/items/links_links', rows.slice(i, i + 100));
    expect(res.statusCode, res.body).toBe(201);
  }
}, 120_000);
afterAll(() => t.close());

describe('relation expansion limits', () => {
  it('a self-referencing m2m at depth 8 fetches a bounded number of rows and never answers megabytes', async () => {
    const before = expansionStats.rowsFetched;
    const res = await call('GET', `/api/v1/items/links?fields=${Array(8).fill('links').join('.')}`);
    const fetched = expansionStats.rowsFetched - before;
    expect(fetched).toBeLessThanOrEqual(EXPANSION_LIMIT + N * N);
    expect(fetched).toBeLessThanOrEqual(8 * N * N);
    expect(res.body.length).toBeLessThan(100_000);
    expect(res.statusCode, res.body).toBe(400);
    const error = res.json().errors[0];
    expect(error.code).toBe('VALIDATION_FAILED');
    expect(error.path).toEqual(['query', 'fields']);
    expect(error.extensions.reason).toBe('expansion_limit');
    expect(error.message).toMatch(/limit/);
  });

  it('a two-level expansion still answers every link of every link', async () => {
    const res = await call('GET', '/api/v1/items/links?fields=id,links.id,links.links.id&limit=2');
    expect(res.statusCode, res.body).toBe(200);
    const data = res.json().data as { id: string; links: { id: string; links: { id: string }[] }[] }[];
    expect(data.map((d) => d.id)).toEqual(['l00', 'l01']);
    for (const d of data) {
      expect(d.links).toHaveLength(N);
      for (const l of d.links) expect(l.links).toHaveLength(N);
    }
    expect(data[0]!.links[3]).toEqual({
      id: 'l03',
      links: Array.from({ length: N }, (_, i) => ({ id: `l${String(i).padStart(2, '0')}` })),
    });
  });
});
