import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../test/setup/app.ts';

/** The search read model is the log's: rebuilt from it, it equals what live projection built. */
let t: TestApp;
let admin: string;
const call = async (method: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE', url: string, payload?: unknown) => {
  const res = await t.call({ method, url, payload: payload as object, as: admin, site: 'main' });
  expect(res.statusCode, `${method} ${url}: ${res.body}`).toBeLessThan(300);
  return res;
};
/**
 * The rows' content; not `version`, the bookkeeping that keeps an older event from overwriting a row: a rebuild
 * derives a field's rows at its creation from today's documents, so their rows carry today's versions.
 */
const dump = async () => {
  const r = await sql<Record<string, unknown>>`
    select site_id, collection, item_id, field, text, weight, deleted, tsv::text as tsv, tsv_exact::text as tsv_exact
    from search_fields order by site_id, collection, item_id, field`.execute(t.deps.database.owner);
  return r.rows;
};
const found = async (q: string) =>
  ((await call('GET', `/api/v1/search?q=${encodeURIComponent(q)}`)).json().data as { id: string }[]).map((h) => h.id);

beforeAll(async () => {
  t = await createTestApp();
  admin = await t.setup();
  await call('POST', '/api/v1/collections', { name: 'articles' });
  await call('POST', '/api/v1/fields/articles', { field: 'title', type: 'string' });
  await call('POST', '/api/v1/fields/articles', { field: 'body', type: 'text' });
  await call('POST', '/api/v1/fields/articles', { field: 'tags', type: 'csv', searchable: true });
  await call('POST', '/api/v1/fields/articles', { field: 'old', type: 'string' });
  await call('POST', '/api/v1/items/articles', [
    { id: 'a1', title: 'Hà Nội', body: 'phở bò', tags: 'ẩm thực,du lịch', old: 'gone soon' },
    { id: 'a2', title: 'Sài Gòn', body: 'cơm tấm' },
    { id: 'a3', title: 'Huế', body: 'bún bò' },
    { id: 'a4', title: 'Đà Lạt', body: 'bò bía' },
  ]);
  await call('PATCH', '/api/v1/items/articles/a1', { body: 'bún chả' });
  await call('PUT', '/api/v1/items/articles/a2', { title: 'Thành phố Hồ Chí Minh' });
  const rev = (await call('GET', '/api/v1/items/articles/a1/revisions')).json().data.at(-1).id;
  await call('POST', '/api/v1/items/articles/a1/revert', { revisionId: rev });
  await call('DELETE', '/api/v1/items/articles/a3');
  await call('POST', '/api/v1/items/articles/a3/restore');
  await call('DELETE', '/api/v1/items/articles/a4');
  await call('DELETE', '/api/v1/fields/articles/old');
  await call('PATCH', '/api/v1/fields/articles/body', { searchable: false });
  await call('PATCH', '/api/v1/fields/articles/body', { searchable: true });
});
afterAll(() => t.close());

describe('the search read model', () => {
  it('holds the items as they are now, one row per searchable field that holds text', async () => {
    const rows = await dump();
    expect(rows.map((r) => [r.item_id, r.field, r.text, r.weight, r.deleted])).toEqual([
      ['a1', 'body', 'phở bò', 'B', false],
      ['a1', 'tags', 'ẩm thực,du lịch', 'B', false],
      ['a1', 'title', 'Hà Nội', 'A', false],
      ['a2', 'title', 'Thành phố Hồ Chí Minh', 'A', false],
      ['a3', 'body', 'bún bò', 'B', false],
      ['a3', 'title', 'Huế', 'A', false],
      ['a4', 'body', 'bò bía', 'B', true],
      ['a4', 'title', 'Đà Lạt', 'A', true],
    ]);
    expect(rows[2]).toMatchObject({ tsv: "'ha':1 'noi':2", tsv_exact: "'hà':1 'nội':2" });
  });

  it('equals its live projection once rebuilt from the log', async () => {
    const live = await dump();
    const res = await t.call({ method: 'POST', url: '/api/v1/admin/projections/search/rebuild', as: admin });
    expect(res.statusCode, res.body).toBe(200);
    expect(await dump()).toEqual(live);
    expect(await found('bo')).toEqual(['a1', 'a3']);
  });

  it('drops and derives again the rows of a field whose searchable is turned off and on', async () => {
    expect(await found('pho bo')).toEqual(['a1']);
    await call('PATCH', '/api/v1/fields/articles/body', { searchable: false });
    expect(await found('pho bo')).toEqual([]);
    expect((await dump()).some((r) => r.field === 'body')).toBe(false);
    await call('PATCH', '/api/v1/fields/articles/body', { searchable: null });
    expect(await found('pho bo')).toEqual(['a1']);
    // Derived again from the documents, a deleted item's rows stay deleted.
    expect(await found('bia')).toEqual([]);
  });

  it('moves the title weight when the first string field goes', async () => {
    await call('POST', '/api/v1/fields/articles', { field: 'subtitle', type: 'string' });
    await call('PATCH', '/api/v1/items/articles/a2', { subtitle: 'Sài Gòn' });
    await call('DELETE', '/api/v1/fields/articles/title');
    const rows = await dump();
    expect(rows.filter((r) => r.field === 'subtitle').map((r) => r.weight)).toEqual(['A']);
    expect(rows.some((r) => r.field === 'title')).toBe(false);
  });
});
