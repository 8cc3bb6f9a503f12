import pg from 'pg';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../setup/app.ts';

const url = process.env.TEST_DATABASE_URL;
if (!url) console.log('PostgreSQL connection-drop test skipped: TEST_DATABASE_URL is not set');

/**
 * The database drops every connection of this service while writes are in flight (an admin kill, a failover):
 * each request answers cleanly (its write landed whole, or the error envelope), nothing is half-written, and the
 * service serves again once connections can be made.
 */
describe.skipIf(!url)('PostgreSQL connections dropped during writes', () => {
  let t: TestApp;
  let admin: string;
  beforeAll(async () => {
    t = await createTestApp();
    admin = await t.setup();
    await t.call({ method: 'POST', url: '/api/v1/collections', as: admin, site: 'main', payload: { name: 'logs' } });
    await t.call({
      method: 'POST',
      url: '/api/v1/fields/logs',
      as: admin,
      site: 'main',
      payload: { field: 'n', type: 'integer' },
    });
  });
  afterAll(() => t.close());

  it('answers every request cleanly, writes nothing by halves, and recovers', async () => {
    const schema = (t.deps.database as unknown as { schema?: string }).schema;
    const killer = new pg.Client({ connectionString: url });
    await killer.connect();
    let n = 0;
    let stop = false;
    const statuses: number[] = [];
    const writer = async () => {
      while (!stop) {
        const res = await t.call({
          method: 'POST',
          url: '/api/v1/items/logs',
          as: admin,
          site: 'main',
          payload: { n: n++ },
        });
        statuses.push(res.statusCode);
        if (res.statusCode !== 201) expect(res.json().errors[0].code).toBeDefined();
      }
    };
    const writers = Array.from({ length: 6 }, writer);
    await new Promise((r) => setTimeout(r, 300));
    const killed = await killer.query(
      `select pg_terminate_backend(pid) from pg_stat_activity where application_name = $1`,
      [`content-service:${schema}`],
    );
    await new Promise((r) => setTimeout(r, 300));
    stop = true;
    await Promise.all(writers);
    await killer.end();
    expect(killed.rowCount).toBeGreaterThan(0);
    expect(statuses.filter((s) => s === 201).length).toBeGreaterThan(0);
    expect(statuses.every((s) => s === 201 || s >= 500)).toBe(true);

    // The service works again.
    const after = await t.call({
      method: 'POST',
      url: '/api/v1/items/logs',
      as: admin,
      site: 'main',
      payload: { n: -1 },
    });
    expect(after.statusCode).toBe(201);
    // Nothing by halves: every stream's version is its last event, every created item has its document.
    const db = t.deps.database.owner;
    const streams = await sql<{ bad: number }>`
      select count(*)::int as bad from streams s
      where s.version <> (select max(stream_version) from events e where e.site_id = s.site_id and e.stream_id = s.stream_id)`.execute(
      db,
    );
    expect(streams.rows[0]!.bad).toBe(0);
    const created = await sql<{ n: number }>`
      select count(*)::int as n from events where type = 'ItemCreated' and data->>'collection' = 'logs'`.execute(db);
    const docs = await sql<{ n: number }>`
      select count(*)::int as n from item_documents where collection = 'logs'`.execute(db);
    expect(docs.rows[0]!.n).toBe(created.rows[0]!.n);
    const listed = await t.call({
      method: 'GET',
      url: '/api/v1/items/logs?limit=1&meta=total_count',
      as: admin,
      site: 'main',
    });
    expect(listed.json().meta.total).toBe(created.rows[0]!.n);
  }, 60_000);
});
