import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/setup/app.ts';
import { createUser } from '../../../test/setup/users.ts';
import { matches, sortDocs, type Doc } from '../../../test/support/filter-oracle.ts';
import { FIELDS, SCHEMA, filterArb, itemArb } from '../../../test/support/item-query.arb.ts';

/**
 * Row-level permissions against the in-memory oracle: for random items and random rule conditions (and a
 * random filter of the caller's own on top), the rows a user lists through the API are exactly those the
 * oracle says satisfy both.
 */
let t: TestApp;
let admin: string;
let user: string;
let policy: string;
let docs: Doc[] = [];
const dataSeed = Number(process.env.ACCESS_DATA_SEED ?? Date.now() % 1_000_000);
const call = (as: string, method: 'GET' | 'POST' | 'DELETE', url: string, payload?: object) =>
  t.call({ method, url, payload, as, site: 'main' });

beforeAll(async () => {
  t = await createTestApp();
  admin = await t.setup();
  await call(admin, 'POST', '/api/v1/collections', { name: 'pa' });
  for (const [field, type] of Object.entries(FIELDS))
    expect((await call(admin, 'POST', '/api/v1/fields/pa', { field, type, nullable: true })).statusCode).toBe(201);
  const [items] = fc.sample(fc.array(itemArb, { minLength: 40, maxLength: 60 }), { numRuns: 1, seed: dataSeed });
  const created = await call(admin, 'POST', '/api/v1/items/pa', items);
  expect(created.statusCode, created.body).toBe(201);
  docs = created.json().data as Doc[];
  const role = (await call(admin, 'POST', '/api/v1/roles', { name: 'Reader' })).json().data.id;
  policy = (await call(admin, 'POST', '/api/v1/policies', { name: 'Random rows' })).json().data.id;
  await call(admin, 'POST', `/api/v1/policies/${policy}/attach`, { role });
  user = await createUser(t, 'reader@example.com', 'Reader-pass-2718!', { main: role });
});
afterAll(() => t.close());

describe('read permissions with conditions', () => {
  it('let a user list exactly the rows the oracle says the conditions (and the user filter) allow', async () => {
    let current: string | null = null;
    await fc.assert(
      fc.asyncProperty(filterArb(docs), fc.option(filterArb(docs), { nil: null }), async (conditions, own) => {
        if (current) await call(admin, 'DELETE', `/api/v1/policies/${policy}/permissions/${current}`);
        const added = await call(admin, 'POST', `/api/v1/policies/${policy}/permissions`, {
          collection: 'pa',
          action: 'read',
          conditions,
        });
        expect(added.statusCode, added.body).toBe(201);
        current = added.json().data.id;
        const qs = [
          'limit=200',
          'meta=total_count',
          ...(own ? [`filter=${encodeURIComponent(JSON.stringify(own))}`] : []),
        ];
        const res = await call(user, 'GET', `/api/v1/items/pa?${qs.join('&')}`);
        expect(res.statusCode, res.body).toBe(200);
        const expected = sortDocs(
          docs.filter((d) => matches(d, conditions, SCHEMA) && (!own || matches(d, own, SCHEMA))),
          [],
          SCHEMA,
        );
        const body = res.json() as { data: Doc[]; meta: { total: number } };
        expect(
          body.data.map((d) => d.id),
          `ACCESS_DATA_SEED=${dataSeed}`,
        ).toEqual(expected.map((d) => d.id));
        expect(body.meta.total).toBe(expected.length);
      }),
      { numRuns: 40 },
    );
  });
});
