import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventStoreContract } from '../../../test/contracts/event-store.contract.ts';
import { PGLITE_TEMPLATE } from '../../../test/setup/db.ts';
import { migrate } from '../../platform/db/migrate.ts';
import { PgEventStore } from '../event-store/pg-event-store.ts';
import type { Database, Db } from '../../kernel/db/database.ts';
import { readAsSite, withSite } from '../../kernel/tenancy/site.ts';
import { openPglite } from './pglite-db.ts';

/**
 * The embedded database on a thread of its own (SVC_PGLITE_WORKER, the default of `npm start`): the serving thread
 * keeps node-postgres and its one-connection pool, the thread runs PGlite. What the service relies on must come back
 * across the thread as it does from the database inside the process: values and their types, errors and their fields,
 * transactions, and the data directory's lock.
 */
const TYPED = sql`
  select 1::int as i, 9007199254740993::int8 as big, 1.50::numeric as num, 'tëxt'::text as t, null::text as nothing,
    true as yes, '2024-02-29T23:59:59.123Z'::timestamptz as at, '\\x00ff10'::bytea as bytes,
    '{"a": [1, {"b": null}], "c": "ü"}'::jsonb as doc, array[1, 2]::int[] as ints, array['x', null]::text[] as texts`;

describe('the embedded database on its own thread', () => {
  let threaded: Database;
  let inProcess: Database;
  beforeAll(async () => {
    [threaded, inProcess] = await Promise.all([
      openPglite({ dataDir: null, thread: true }),
      openPglite({ dataDir: null, thread: false }),
    ]);
    for (const db of [threaded.db, inProcess.db])
      await sql`create table t (id int primary key, v text not null constraint t_v_unique unique)`.execute(db);
  });
  afterAll(async () => {
    await threaded?.close();
    await inProcess?.close();
  });

  it('reads values with the types the database inside the process gives them (dates, bytes, int8 as text, json)', async () => {
    const [there, here] = await Promise.all([TYPED.execute(threaded.db), TYPED.execute(inProcess.db)]);
    expect(there.rows).toEqual(here.rows);
    const row = there.rows[0] as Record<string, unknown>;
    expect(row.at).toEqual(new Date('2024-02-29T23:59:59.123Z'));
    expect(row.bytes).toEqual(Buffer.from([0, 255, 16]));
    expect(row.big).toBe('9007199254740993');
    expect(row.doc).toEqual({ a: [1, { b: null }], c: 'ü' });
  });

  it('writes with parameters of every kind and reads them back', async () => {
    const at = new Date('2025-01-01T00:00:00.000Z');
    const row = await sql<{ at: Date; b: Buffer; n: string; j: unknown }>`
      select ${at}::timestamptz as at, ${Buffer.from('hi')}::bytea as b, ${10n ** 18n}::int8 as n,
        ${JSON.stringify({ k: [1] })}::jsonb as j`.execute(threaded.db);
    expect(row.rows[0]).toEqual({ at, b: Buffer.from('hi'), n: '1000000000000000000', j: { k: [1] } });
    await threaded.db
      .insertInto('t' as never)
      .values({ id: 1, v: 'one' } as never)
      .execute();
    expect((await sql`select id, v from t`.execute(threaded.db)).rows).toEqual([{ id: 1, v: 'one' }]);
  });

  it('rolls a failed transaction back, and runs transactions one after the other on its one connection', async () => {
    const order: string[] = [];
    const failing = threaded.db.transaction().execute(async (trx) => {
      await sql`insert into t values (10, 'ten')`.execute(trx);
      order.push('first wrote');
      await new Promise((r) => setTimeout(r, 50));
      throw new Error('abandon');
    });
    const second = threaded.db.transaction().execute(async (trx) => {
      order.push('second began');
      return (await sql<{ n: number }>`select count(*)::int as n from t where id = 10`.execute(trx)).rows[0]!.n;
    });
    await expect(failing).rejects.toThrow('abandon');
    expect(await second).toBe(0);
    expect(order).toEqual(['first wrote', 'second began']);
  });

  it("keeps a unique violation's code, constraint, table and detail", async () => {
    await sql`insert into t values (2, 'two')`.execute(threaded.db);
    const err = await sql`insert into t values (3, 'two')`.execute(threaded.db).catch((e: unknown) => e);
    expect(err).toMatchObject({
      code: '23505',
      constraint: 't_v_unique',
      table: 't',
      detail: 'Key (v)=(two) already exists.',
      message: 'duplicate key value violates unique constraint "t_v_unique"',
    });
  });

  it('answers a statement after an error in the same turn (a syntax error does not stall the connection)', async () => {
    const [bad, good] = await Promise.allSettled([
      sql`selec 1`.execute(threaded.db),
      sql`select 2 as n`.execute(threaded.db),
    ]);
    expect(bad).toMatchObject({ status: 'rejected', reason: { code: '42601' } });
    expect(good).toMatchObject({ status: 'fulfilled', value: { rows: [{ n: 2 }] } });
  });
});

describe('the embedded database on its thread, driven as PostgreSQL is', () => {
  let threaded: Database;
  beforeAll(async () => {
    threaded = await openPglite({ dataDir: null, thread: true });
    await sql`create table r (site_id text not null, n int not null)`.execute(threaded.db);
    await sql`insert into r values ('a', 1), ('b', 2), ('a', 3)`.execute(threaded.db);
  });
  afterAll(() => threaded?.close());
  const setting = (db: Db) =>
    sql<{ s: string | null }>`select current_setting('svc.site_id', true) as s`.execute(db).then((r) => r.rows[0]!.s);
  const prepared = (like: string) =>
    sql<{ statement: string }>`select statement from pg_prepared_statements where statement like ${`%${like}%`}
      and statement not like '%pg_prepared_statements%'`
      .execute(threaded.db)
      .then((r) => r.rows.map((x) => x.statement));

  it('runs a site read outside a transaction, with the setting ending with its statement', async () => {
    const seen = await readAsSite(threaded.db, 'a', async (r) => ({ trx: r.isTransaction, s: await setting(r) }));
    expect(seen).toEqual({ trx: false, s: 'a' });
    expect(await setting(threaded.db)).toBe('');
    const inTrx = await withSite(threaded.db, 'b', async (trx) => [await setting(trx), await setting(trx)]);
    expect(inTrx).toEqual(['b', 'b']);
  });

  it('parses a fixed-shape statement once, and forgets one that failed', async () => {
    for (let i = 0; i < 3; i++)
      await readAsSite(threaded.db, 'a', (r) => sql`select n from r where n > ${i} and site_id = 'a'`.execute(r));
    expect(await prepared("from r where n > $1 and site_id = 'a'")).toHaveLength(1);
    const err = await readAsSite(threaded.db, 'a', (r) => sql`select n / ${0}::int from r`.execute(r)).catch(
      (e: unknown) => e,
    );
    expect(err).toMatchObject({ code: '22012' });
    await readAsSite(threaded.db, 'a', (r) => sql`select 1 from r where n = ${1}`.execute(r));
    expect(await prepared('n / $1::int')).toEqual([]);
  });
});

describe('a data directory on a thread', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-pglite-thread-'));
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('holds the directory while open, and after a close reopens it with what was written', async () => {
    const first = await openPglite({ dataDir: dir, thread: true });
    await sql`create table kept (id int primary key)`.execute(first.db);
    await sql`insert into kept values (1), (2)`.execute(first.db);
    expect(fs.readFileSync(path.join(dir, 'svc.lock'), 'utf8')).toBe(String(process.pid));
    await first.close();
    expect(fs.existsSync(path.join(dir, 'svc.lock'))).toBe(false);
    await expect(sql`select 1`.execute(first.db)).rejects.toThrow();

    const again = await openPglite({ dataDir: dir, thread: true });
    try {
      expect((await sql`select id from kept order by id`.execute(again.db)).rows).toEqual([{ id: 1 }, { id: 2 }]);
    } finally {
      await again.close();
    }
  });

  it("rejects with the database's error when the thread cannot open the directory, and releases the lock", async () => {
    const broken = path.join(dir, 'broken');
    fs.mkdirSync(broken);
    fs.writeFileSync(path.join(broken, 'PG_VERSION'), '9\n');
    const err = await openPglite({ dataDir: broken, thread: true }).catch((e: unknown) => e as Error);
    expect(err).toBeInstanceOf(Error);
    expect((err as Error).message).not.toMatch(/in use/);
    expect(fs.existsSync(path.join(broken, 'svc.lock'))).toBe(false);
  });
});

const template = () => (fs.existsSync(PGLITE_TEMPLATE) ? new Blob([fs.readFileSync(PGLITE_TEMPLATE)]) : undefined);

eventStoreContract('PGlite on its own thread', async ({ upcasters }) => {
  const database = await openPglite({ dataDir: null, loadDataDir: template(), thread: true });
  await migrate(database.db);
  return { store: new PgEventStore(database.db, [], { upcasters }), close: () => database.close() };
});
