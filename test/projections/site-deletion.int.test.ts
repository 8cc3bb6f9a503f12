import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allProjectors } from '../../src/features/index.ts';
import { deleteSite } from '../../src/features/sites/index.ts';
import { createTestApp, type TestApp } from '../setup/app.ts';
import { apiClient } from '../setup/api.ts';

/**
 * Deleting a site (a preview's teardown) empties every read model of that site's rows, through the projector
 * wrapper's cascade, and of no other site's: the guarantee holds because every table of a read model that is not
 * instance-wide has a `site_id`, which this file checks for each of them.
 */
let t: TestApp;
let admin: string;
const { ok } = apiClient(
  () => t,
  () => admin,
);

const tables = () =>
  allProjectors()
    .filter((p) => !p.instanceWide)
    .flatMap((p) => p.tables.map((table) => ({ projector: p.name, table })));

const rowsOf = async (site: string) => {
  const counts = new Map<string, number>();
  for (const { table } of tables()) {
    const r = await sql<{
      n: string;
    }>`select count(*)::text as n from ${sql.table(table)} where site_id = ${site}`.execute(t.deps.database.owner);
    counts.set(table, Number(r.rows[0]!.n));
  }
  return counts;
};

/** Content of many kinds on a site: schema, items, pages, presets, translation memory, API keys, webhooks. */
async function fill(site: string) {
  const as = { site };
  await ok('POST', '/api/v1/collections', { name: 'posts' }, as);
  await ok('POST', '/api/v1/fields/posts', { field: 'title', type: 'string' }, as);
  for (const id of ['p1', 'p2']) await ok('POST', '/api/v1/items/posts', { id, title: `Post ${id}` }, as);
  await ok('PATCH', '/api/v1/items/posts/p1', { title: 'Edited' }, as);
  await ok('POST', '/api/v1/pages', { slug: 'home', title: 'Home' }, as);
  await ok('POST', '/api/v1/presets', { collection: 'posts', layout: 'tabular', query: {} }, as);
  await ok('POST', '/api/v1/tm', { sourceLang: 'en', targetLang: 'vi', source: 'Hello', target: 'Xin chào' }, as);
  await ok('POST', '/api/v1/api-keys', { name: 'build', roleKey: 'editor' }, as);
}

beforeAll(async () => {
  t = await createTestApp();
  admin = await t.setup();
  for (const id of ['doomed', 'kept']) {
    await ok('POST', '/api/v1/sites', { id, name: id });
    await fill(id);
  }
  await t.deps.drainAsync();
}, 60_000);
afterAll(() => t.close());

describe('deleting a site', () => {
  it('finds a site_id column in every table of every read model that is not instance-wide', async () => {
    const missing: string[] = [];
    for (const { projector, table } of tables()) {
      const r = await sql<{ n: string }>`
        select count(*)::text as n from information_schema.columns
        where table_schema = current_schema() and table_name = ${table} and column_name = 'site_id'`.execute(
        t.deps.database.owner,
      );
      if (r.rows[0]!.n !== '1') missing.push(`${projector}.${table}`);
    }
    expect(missing).toEqual([]);
  });

  it('leaves no row of the site in any read model, and every other site’s rows as they were', async () => {
    const before = await rowsOf('doomed');
    const kept = await rowsOf('kept');
    expect(before.get('item_documents')).toBeGreaterThan(0);
    expect(before.get('pages')).toBeGreaterThan(0);
    expect(before.get('sites')).toBe(1);
    const at = new Date().toISOString();
    const metadata = {
      siteId: 'doomed',
      actor: { type: 'system' as const, id: 'test' },
      correlationId: 'delete',
      causationId: null,
      requestId: null,
      occurredAt: at,
    };
    await deleteSite(t.deps, { metadata }, { siteId: 'doomed', reason: 'test', by: 'test', now: at });
    await t.deps.drainAsync();
    const after = await rowsOf('doomed');
    expect([...after].filter(([, n]) => n > 0)).toEqual([]);
    expect(await rowsOf('kept')).toEqual(kept);
    // Gone for requests too, and its id is not given again.
    const res = await t.call({ method: 'GET', url: '/api/v1/items/posts', as: admin, site: 'doomed' });
    expect(res.statusCode).toBe(404);
    const again = await t.call({
      method: 'POST',
      url: '/api/v1/sites',
      as: admin,
      site: 'main',
      payload: { id: 'doomed', name: 'x' },
    });
    expect(again.statusCode).toBe(409);
  });
});
