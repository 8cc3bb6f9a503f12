import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/setup/app.ts';
import { matches, sortDocs, type Doc, type Filter } from '../../../test/support/filter-oracle.ts';
import { FIELDS, SCHEMA, filterArb, itemArb, sortArb } from '../../../test/support/item-query.arb.ts';

/**
 * The list query against a plain in-memory reading of the same filter and sort (test/support/filter-oracle.ts):
 * random items of every value type are written once through the API, then many random filters and sorts must
 * return exactly the ids the oracle picks, in its order.
 */
let t: TestApp;
let admin: string;
const call = (method: 'GET' | 'POST' | 'DELETE', url: string, payload?: unknown) =>
  t.call({ method, url, payload: payload as object, as: admin, site: 'main' });

interface Dataset {
  collection: string;
  /** The live items as the bulk create answered them. */
  docs: Doc[];
  deleted: string[];
}
const datasets: Dataset[] = [];
/** Failures name it; FILTER_DATA_SEED=<seed> writes the same items again. */
const dataSeed = Number(process.env.FILTER_DATA_SEED ?? Date.now() % 1_000_000);

/** Writes one random dataset in one bulk create, then soft-deletes a few of its items. */
async function seedDataset(collection: string, seed: number): Promise<Dataset> {
  await call('POST', '/api/v1/collections', { name: collection });
  for (const [field, type] of Object.entries(FIELDS))
    expect((await call('POST', `/api/v1/fields/${collection}`, { field, type, nullable: true })).statusCode).toBe(201);
  const [items] = fc.sample(fc.array(itemArb, { minLength: 40, maxLength: 60 }), { numRuns: 1, seed });
  const created = await call('POST', `/api/v1/items/${collection}`, items);
  expect(created.statusCode, created.body).toBe(201);
  const docs = created.json().data as Doc[];
  const deleted = docs.filter((_, i) => i % 13 === 5).map((d) => d.id);
  for (const id of deleted) expect((await call('DELETE', `/api/v1/items/${collection}/${id}`)).statusCode).toBe(204);
  return { collection, docs: docs.filter((d) => !deleted.includes(d.id)), deleted };
}

beforeAll(async () => {
  t = await createTestApp();
  admin = await t.setup();
  for (const [i, c] of ['ora', 'orb'].entries()) datasets.push(await seedDataset(c, dataSeed + i));
});
afterAll(() => t.close());

async function list(dataset: Dataset, filter: Filter | null, sort: string[]) {
  const qs = [
    'limit=200',
    ...(filter ? [`filter=${encodeURIComponent(JSON.stringify(filter))}`] : []),
    ...(sort.length ? [`sort=${sort.join(',')}`] : []),
  ];
  return call('GET', `/api/v1/items/${dataset.collection}?${qs.join('&')}`);
}

describe('GET /api/v1/items/:collection filter and sort', () => {
  it('returns the ids the in-memory oracle picks, in its order, for random filters and sorts', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.nat(datasets.length - 1),
        filterArb(datasets.flatMap((d) => d.docs)),
        sortArb,
        async (n, filter, sort) => {
          const dataset = datasets[n]!;
          const res = await list(dataset, filter, sort);
          expect(res.statusCode, res.body).toBe(200);
          const expected = sortDocs(
            dataset.docs.filter((d) => matches(d, filter, SCHEMA)),
            sort,
            SCHEMA,
          );
          const body = res.json() as { data: Doc[]; meta: { total: number } };
          expect(
            body.data.map((d) => d.id),
            `FILTER_DATA_SEED=${dataSeed}`,
          ).toEqual(expected.map((d) => d.id));
          expect(body.meta.total).toBe(expected.length);
        },
      ),
      { numRuns: 400 },
    );
  });

  it('sorts the whole collection the way the oracle does for random sorts', async () => {
    await fc.assert(
      fc.asyncProperty(fc.nat(datasets.length - 1), sortArb, async (n, sort) => {
        const dataset = datasets[n]!;
        const res = await list(dataset, null, sort);
        expect(
          (res.json().data as Doc[]).map((d) => d.id),
          `FILTER_DATA_SEED=${dataSeed}`,
        ).toEqual(sortDocs(dataset.docs, sort, SCHEMA).map((d) => d.id));
      }),
      { numRuns: 60 },
    );
  });

  it('lists every live item and never a soft-deleted one', async () => {
    for (const d of datasets) {
      const ids = ((await list(d, null, [])).json().data as Doc[]).map((x) => x.id);
      expect(d.deleted.length).toBeGreaterThan(0);
      expect(ids.filter((id) => d.deleted.includes(id))).toEqual([]);
      expect([...ids].sort()).toEqual(d.docs.map((x) => x.id).sort());
    }
  });
});
