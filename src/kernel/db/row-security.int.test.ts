import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import pg from 'pg';
import { createTestApp, type TestApp } from '../../../test/setup/app.ts';
import { servingUrl } from '../../../test/setup/db.ts';
import { checkServingRole } from './row-security.ts';

/**
 * Row-level security as the second wall (DESIGN §4), seen from the serving role's own connection. PostgreSQL only:
 * PGlite runs as a superuser, whom row-level security never holds.
 */
const url = process.env.TEST_DATABASE_URL;
if (!url)
  console.info('row-level security tests skipped: PGlite runs as a superuser, which row-level security never holds');

/** Tables of one site's data that the setup below fills for both sites. */
const FILLED = ['events', 'streams', 'sites', 'item_documents', 'schema_collections', 'api_keys'];

let t: TestApp;
let client: pg.Client;
let siteTables: string[];

const rows = async (table: string, site?: string) => {
  await client.query('begin');
  try {
    if (site !== undefined) await client.query(`select set_config('svc.site_id', $1, true)`, [site]);
    const r = await client.query<{ site_id: string }>(`select site_id from ${table}`);
    return r.rows.map((x) => x.site_id);
  } finally {
    await client.query('rollback');
  }
};

const fails = async (statement: string, site?: string) => {
  await client.query('begin');
  try {
    if (site !== undefined) await client.query(`select set_config('svc.site_id', $1, true)`, [site]);
    await client.query(statement);
    return null;
  } catch (err) {
    return (err as Error).message;
  } finally {
    await client.query('rollback');
  }
};

describe.runIf(url)('row-level security on PostgreSQL, as the serving role', () => {
  beforeAll(async () => {
    t = await createTestApp();
    const admin = await t.setup();
    const call = (method: 'POST', path: string, payload: object, site = 'main') =>
      t.call({ method, url: path, as: admin, site, payload });
    expect((await call('POST', '/api/v1/sites', { id: 'second', name: 'Second' })).statusCode).toBe(201);
    for (const site of ['main', 'second']) {
      await call('POST', '/api/v1/collections', { name: 'notes' }, site);
      await call('POST', '/api/v1/fields/notes', { field: 'title', type: 'string' }, site);
      expect((await call('POST', '/api/v1/items/notes', { title: `of ${site}` }, site)).statusCode).toBe(201);
      expect((await call('POST', '/api/v1/api-keys', { name: 'k', roleKey: 'editor' }, site)).statusCode).toBe(201);
    }
    const schema = (await sql<{ s: string }>`select current_schema() as s`.execute(t.deps.database.owner)).rows[0]!.s;
    client = new pg.Client({ connectionString: servingUrl(url!), options: `-c search_path=${schema}` });
    await client.connect();
    const tables = await client.query<{ table_name: string }>(
      `select table_name from information_schema.columns where table_schema = $1 and column_name = 'site_id'`,
      [schema],
    );
    siteTables = tables.rows.map((r) => r.table_name).sort();
  });
  afterAll(async () => {
    await client?.end();
    await t?.close();
  });

  it('serves from a role that owns nothing and is neither a superuser nor exempt from row-level security', async () => {
    const me = await client.query<{ name: string; superuser: boolean; bypass: boolean; owns: number }>(
      `select current_user as name, rolsuper as superuser, rolbypassrls as bypass,
              (select count(*)::int from pg_tables where schemaname = current_schema() and tableowner = current_user) as owns
       from pg_roles where rolname = current_user`,
    );
    expect(me.rows[0]).toEqual({ name: t.deps.database.servingRole, superuser: false, bypass: false, owns: 0 });
    // Every table with site_id is FORCEd, the log and the outbox among them.
    const loose = await client.query<{ relname: string }>(
      `select relname from pg_class where relnamespace = current_schema()::regnamespace
         and relname = any($1) and not (relrowsecurity and relforcerowsecurity)`,
      [siteTables],
    );
    expect(loose.rows).toEqual([]);
    expect(siteTables).toEqual(expect.arrayContaining([...FILLED, 'outbox', 'users', 'user_sites', 'sessions']));
  });

  it('sees no site’s rows in any table without the site setting', async () => {
    for (const table of [...FILLED, 'users', 'user_sites', 'sessions']) expect(await rows(table), table).toEqual([]);
    for (const table of [...siteTables, 'subject_keys']) {
      const r = await client.query<{ n: number }>(`select count(*)::int as n from ${table}`);
      expect(r.rows[0]!.n, table).toBe(0);
    }
  });

  it('sees only site main’s rows under svc.site_id = main, and every site’s under _system', async () => {
    for (const table of FILLED) {
      const mine = await rows(table, 'main');
      expect(mine.length, table).toBeGreaterThan(0);
      expect(new Set(mine), table).toEqual(new Set(['main']));
      expect(await rows(table, '_system'), table).toEqual(expect.arrayContaining(['main', 'second']));
    }
    for (const table of ['users', 'sessions', 'subject_keys']) {
      const n = async (site: string) => {
        await client.query('begin');
        await client.query(`select set_config('svc.site_id', $1, true)`, [site]);
        const r = await client.query<{ n: number }>(`select count(*)::int as n from ${table}`);
        await client.query('rollback');
        return r.rows[0]!.n;
      };
      // Accounts, their sessions and their personal-data keys are instance-wide: not one site's.
      expect(await n('main'), table).toBe(0);
      expect(await n('_system'), table).toBeGreaterThan(0);
    }
  });

  it('cannot write a row of another site under a site setting', async () => {
    const event = `insert into events (site_id, stream_id, stream_version, event_id, type, data, metadata, created_at)
                   values ('second', 'second/x/1', 1, gen_random_uuid(), 'X', '{}', '{}', now())`;
    expect(await fails(event, 'main')).toMatch(/row-level security/);
    expect(await fails(event)).toMatch(/row-level security/);
    const doc = `insert into item_documents (site_id, collection, id, data, version, created_at, created_by, updated_at, updated_by)
                 values ('second', 'notes', 'forged', '{}', 1, now(), 'x', now(), 'x')`;
    expect(await fails(doc, 'main')).toMatch(/row-level security/);
    expect(await fails(`update item_documents set site_id = 'second' where site_id = 'main'`, 'main')).toMatch(
      /row-level security/,
    );
    const moved = await client.query(`update sites set name = 'hijacked' where site_id = 'second'`);
    expect(moved.rowCount).toBe(0);
  });

  it('reads a stream in one statement under the stream site only, and the site ends with that statement', async () => {
    const version = async (site: string, stream: string) =>
      (await client.query<{ v: number | null }>('select svc_stream_version($1, $2) as v', [site, stream])).rows[0]!.v;
    expect(await version('main', 'main/site/main')).toBeGreaterThan(0);
    // Another site's stream named under this site's setting: the function's own filter and the wall both hold.
    expect(await version('main', 'second/site/second')).toBeNull();
    const page = await client.query<{ site_id: string }>(
      'select site_id from svc_read_stream($1, $2, 1, null, null, 100)',
      ['main', 'main/site/main'],
    );
    expect(page.rows.length).toBeGreaterThan(0);
    expect(new Set(page.rows.map((r) => r.site_id))).toEqual(new Set(['main']));
    // The setting was the statement's own: the next statement on the connection sees nothing again.
    const after = await client.query<{ s: string | null; n: number }>(
      `select current_setting('svc.site_id', true) as s, (select count(*)::int from streams) as n`,
    );
    expect(after.rows[0]!.n).toBe(0);
    expect(after.rows[0]!.s ?? '').toBe('');
  });

  it('makes item indexes through the owner function only for the site of its transaction', async () => {
    const other = `select svc_item_index('index', 'item_documents', 'item_documents_x_00000000000000aa', 'second', 'notes', 'title', 'text')`;
    expect(await fails(other, 'main')).toMatch(/not the site of this transaction/);
    expect(await fails(other)).toMatch(/not the site of this transaction/);
    expect(await fails(other.replace("'second'", "'main'"), 'main')).toBeNull();
    expect(
      await fails(
        `select svc_item_index('index', 'events', 'events_x_00000000000000aa', 'main', 'n', 't', 'text')`,
        'main',
      ),
    ).toMatch(/not an item table/);
  });

  it('cannot raise itself to the owner, nor lift the wall, nor read the instance secrets', async () => {
    expect(await fails('set role postgres')).toMatch(/permission denied/);
    expect(await fails(`select set_config('role', 'postgres', true)`)).toMatch(/permission denied/);
    expect(await fails('set session authorization postgres')).toMatch(/permission denied/);
    await client.query('reset role');
    const who = await client.query<{ u: string }>('select current_user as u');
    expect(who.rows[0]!.u).toBe(t.deps.database.servingRole);
    expect(await fails('alter table events no force row level security')).toMatch(/must be owner/);
    expect(await fails('drop policy site_wall on item_documents')).toMatch(/must be owner/);
    expect(await fails('select * from instance_settings')).toMatch(/permission denied/);
  });

  it('refuses to serve as a role that row-level security would not hold', async () => {
    await expect(checkServingRole(t.deps.database.owner)).rejects.toThrow(/is a superuser/);
    await expect(checkServingRole(t.deps.db)).resolves.toBe(t.deps.database.servingRole);
  });
});
