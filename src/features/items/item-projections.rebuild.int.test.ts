import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/setup/app.ts';

/** The item read models are the log's: rebuilt from it, they equal what live projection built. */
let t: TestApp;
let admin: string;
const call = (method: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE', url: string, payload?: unknown) =>
  t.call({ method, url, payload: payload as object, as: admin, site: 'main' });

const TABLES: Record<string, { table: string; order: string }> = {
  'item-documents': { table: 'item_documents', order: 'site_id, collection, id' },
  'item-revisions': { table: 'item_revisions', order: 'site_id, collection, item_id, version' },
  'item-versions': { table: 'item_versions', order: 'site_id, collection, item_id, key' },
};
const dump = async (name: string) => {
  const { table, order } = TABLES[name]!;
  const r = await sql<Record<string, unknown>>`select * from ${sql.table(table)} order by ${sql.raw(order)}`.execute(
    t.deps.database.owner,
  );
  return JSON.parse(JSON.stringify(r.rows)) as unknown[];
};
const indexes = async () =>
  (
    await sql<{ indexdef: string }>`select indexdef from pg_indexes where schemaname = current_schema()
      and tablename = 'item_documents' order by indexname`.execute(t.deps.database.owner)
  ).rows.map((r) => r.indexdef);

beforeAll(async () => {
  t = await createTestApp();
  admin = await t.setup();
  await call('POST', '/api/v1/collections', { name: 'articles' });
  await call('POST', '/api/v1/fields/articles', { field: 'title', type: 'string', required: true });
  await call('POST', '/api/v1/fields/articles', { field: 'views', type: 'integer' });
  await call('POST', '/api/v1/fields/articles', { field: 'code', type: 'string', unique: true });
  await call('POST', '/api/v1/fields/articles', { field: 'old', type: 'string' });
  await call('POST', '/api/v1/items/articles', [
    { id: 'a1', title: 'One', views: 1, code: 'x', old: 'o' },
    { id: 'a2', title: 'Two' },
    { id: 'a3', title: 'Three' },
  ]);
  await call('PATCH', '/api/v1/items/articles/a1', { views: 2 });
  await call('PUT', '/api/v1/items/articles/a2', { title: 'Deux', views: 5 });
  const rev = (await call('GET', '/api/v1/items/articles/a1/revisions')).json().data.at(-1).id;
  await call('POST', '/api/v1/items/articles/a1/revert', { revisionId: rev });
  await call('DELETE', '/api/v1/items/articles/a3');
  await call('POST', '/api/v1/items/articles/a3/restore');
  await call('DELETE', '/api/v1/items/articles/a2');
  await call('POST', '/api/v1/items/articles/a1/versions', { key: 'draft', name: 'Draft' });
  await call('PATCH', '/api/v1/items/articles/a1/versions/draft', { data: { title: 'Draft one' } });
  await call('POST', '/api/v1/items/articles/a1/versions/draft/promote');
  await call('DELETE', '/api/v1/fields/articles/old');
});
afterAll(() => t.close());

describe('item read models rebuilt from the log', () => {
  it.each(Object.keys(TABLES))('%s equals its live projection, indexes included', async (name) => {
    const live = await dump(name);
    const liveIndexes = await indexes();
    expect(live.length).toBeGreaterThan(0);
    const res = await t.call({ method: 'POST', url: `/api/v1/admin/projections/${name}/rebuild`, as: admin });
    expect(res.statusCode, res.body).toBe(200);
    expect(await dump(name)).toEqual(live);
    expect(await indexes()).toEqual(liveIndexes);
  });
});
