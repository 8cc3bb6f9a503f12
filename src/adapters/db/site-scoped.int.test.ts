import { systemMetadata } from '../../../test/support/metadata.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql, type Kysely } from 'kysely';
import { randomUUID } from 'node:crypto';
import { openTestDatabase, servingUrl } from '../../../test/setup/db.ts';
import { asSite, asSystem, readAsSite, withSite } from '../../kernel/tenancy/site.ts';

import { PgEventStore } from '../event-store/pg-event-store.ts';
import { createDatabase } from './create-db.ts';
import { later } from '../../kernel/db/later.ts';
import type { Db, DB } from '../../kernel/db/database.ts';
import { grantReadModel, secureTable } from '../../kernel/db/row-security.ts';

/**
 * Site-scoped readers (adapters/db/site-scoped.ts): each statement sent right behind `set_config('svc.site_id', …,
 * true)` in one round trip, so that row-level security confines it to the site and the setting ends with it; and
 * the serving connection, whose `begin`, site setting and savepoints travel with the statement after them.
 * Most of this needs PostgreSQL with the serving role `svc_app` under FORCEd row-level security: PGlite runs as a
 * superuser, whom row-level security never holds, and a single-role PostgreSQL (TEST_SINGLE_ROLE=1) serves as the
 * owner, who is a superuser too.
 */
const url = process.env.TEST_DATABASE_URL;
const walled = Boolean(url) && process.env.TEST_SINGLE_ROLE !== '1';

let database: Awaited<ReturnType<typeof openTestDatabase>>;
beforeAll(async () => {
  database = await openTestDatabase();
});
afterAll(() => database?.drop());

/** A read-model-like table with a site_id, under the site policy, granted to the serving role, filled as the owner. */
async function siteTable(table: string, rows: [site: string, n: number][]): Promise<void> {
  await sql`create table ${sql.table(table)} (id serial primary key, site_id text not null, n int not null, note text)`.execute(
    database.owner,
  );
  await secureTable(database.owner, table);
  if (database.servingRole) await grantReadModel(database.owner, table, database.servingRole);
  for (const [site, n] of rows)
    await sql`insert into ${sql.table(table)} (site_id, n) values (${site}, ${n})`.execute(database.owner);
}

type Row = { site_id: string; n: number };
/** Every row the connection lets the statement see: the query itself has no site filter. */
const rowsOf = async (db: Db, table = 'site_rows') =>
  (await sql<Row>`select site_id, n from ${sql.table(table)} order by n`.execute(db)).rows;
const settingOf = async (db: Db) =>
  (await sql<{ s: string | null }>`select current_setting('svc.site_id', true) as s`.execute(db)).rows[0]!.s;

describe('readAsSite on the embedded database and on PostgreSQL', () => {
  it('runs a query under the site, whose setting ends with it; row-level security holds it unless it is a superuser', async () => {
    await siteTable('site_rows_any', [
      ['a', 1],
      ['b', 2],
      ['a', 3],
    ]);
    const forced = await sql<{ forced: boolean }>`
      select relrowsecurity and relforcerowsecurity as forced from pg_class where oid = to_regclass('site_rows_any')`.execute(
      database.owner,
    );
    expect(forced.rows[0]!.forced).toBe(true);
    const seen = await readAsSite(database.db, 'a', async (r) => ({
      isTransaction: r.isTransaction,
      setting: await settingOf(r),
      rows: await rowsOf(r, 'site_rows_any'),
      exempt: (
        await sql<{ exempt: boolean }>`
          select rolsuper or rolbypassrls as exempt from pg_roles where rolname = current_user`.execute(r)
      ).rows[0]!.exempt,
    }));
    // Both have site-scoped readers: the statement runs in an implicit transaction of its own, with its setting.
    expect(seen.isTransaction).toBe(false);
    expect(seen.setting).toBe('a');
    expect(seen.exempt).toBe(!walled);
    expect(seen.rows).toEqual(
      walled
        ? [
            { site_id: 'a', n: 1 },
            { site_id: 'a', n: 3 },
          ]
        : [
            { site_id: 'a', n: 1 },
            { site_id: 'b', n: 2 },
            { site_id: 'a', n: 3 },
          ],
    );
    // The setting was the statement's (or the transaction's) own: the connection is back to its default.
    const after = await settingOf(database.db);
    expect(after).not.toBe('a');
    // (A single role's sessions default to the instance-wide setting; the serving role's and PGlite's to none.)
    expect(after ?? '').toBe(database.kind === 'postgres' && !database.separateRoles ? '_system' : '');
  });

  // Kysely's own PostgreSQL driver starts such a transaction with `start transaction isolation level …, read only`.
  it('honours a transaction’s isolation level and access mode on the serving connection', async () => {
    const got = await database.db
      .transaction()
      .setIsolationLevel('serializable')
      .setAccessMode('read only')
      .execute(
        async (trx) =>
          (
            await sql<{ iso: string; ro: string }>`
              select current_setting('transaction_isolation') as iso, current_setting('transaction_read_only') as ro`.execute(
              trx,
            )
          ).rows[0],
      );
    expect(got).toEqual({ iso: 'serializable', ro: 'on' });
  });
});

describe.skipIf(!walled)('site-scoped readers on PostgreSQL, as the serving role', () => {
  /** Rows of site a and b as the owner put them in; tests below add rows of their own (n >= 100). */
  const A = [
    { site_id: 'a', n: 1 },
    { site_id: 'a', n: 2 },
    { site_id: 'a', n: 3 },
  ];
  const B = [
    { site_id: 'b', n: 11 },
    { site_id: 'b', n: 12 },
  ];
  const POOL = 12;
  /** Holds its connection a little, so that statements sent together take every connection of the pool. */
  const slowly = (db: Db) =>
    sql<{ pid: number; s: string | null; sites: string[] | null; n: number }>`
      select pg_backend_pid() as pid, current_setting('svc.site_id', true) as s,
             (select array_agg(distinct site_id order by site_id) from site_rows) as sites,
             (select count(*)::int from site_rows) as n
      from pg_sleep(0.05)`
      .execute(db)
      .then((r) => r.rows[0]!);
  const all = async () => rowsOf(database.owner);

  beforeAll(async () => {
    expect(database.separateRoles).toBe(true);
    await siteTable('site_rows', [
      ['a', 1],
      ['b', 11],
      ['a', 2],
      ['b', 12],
      ['a', 3],
    ]);
  });

  // First, so that the failing statements are the first that fresh connections send (the named set_config
  // statement is parsed in the same batch as the statement that fails).
  it('rejects with PostgreSQL’s error on a failing statement and leaves every connection usable', async () => {
    const failures = await Promise.allSettled(
      Array.from({ length: POOL }, (_, i) =>
        readAsSite(database.db, i % 2 ? 'b' : 'a', (r) =>
          // Fails once pg_sleep has held the connection, so each takes a connection of its own.
          sql`select 1 / (select count(*)::int - 1 from pg_sleep(0.05)) as x`.execute(r),
        ),
      ),
    );
    for (const f of failures) {
      expect(f.status).toBe('rejected');
      expect((f as PromiseRejectedResult).reason).toMatchObject({ code: '22012' });
    }
    await expect(readAsSite(database.db, 'a', (r) => sql`select 1/0 as x`.execute(r))).rejects.toMatchObject({
      code: '22012',
    });
    await expect(
      readAsSite(database.db, 'a', (r) => sql`select * from no_such_table`.execute(r)),
    ).rejects.toMatchObject({ code: '42P01', message: expect.stringMatching(/no_such_table/) });
    const next = await Promise.all(
      Array.from({ length: 2 * POOL }, (_, i) => readAsSite(database.db, i % 2 ? 'b' : 'a', slowly)),
    );
    expect(new Set(next.map((r) => r.pid)).size).toBe(POOL);
    next.forEach((r, i) => {
      const site = i % 2 ? 'b' : 'a';
      expect(r).toMatchObject({ s: site, sites: [site], n: site === 'a' ? A.length : B.length });
    });
    expect(await readAsSite(database.db, 'b', (r) => rowsOf(r))).toEqual(B);
  });

  it('confines a query without a site filter to the reader’s site; outside any scope the serving role sees nothing', async () => {
    const a = await readAsSite(database.db, 'a', async (r) => ({
      isTransaction: r.isTransaction,
      rows: await rowsOf(r),
    }));
    // The one-round-trip reader, not the fallback transaction.
    expect(a).toEqual({ isTransaction: false, rows: A });
    expect(await readAsSite(database.db, 'b', (r) => rowsOf(r))).toEqual(B);
    expect(await readAsSite(database.db, 'c', (r) => rowsOf(r))).toEqual([]);
    // Explicitly asking for the other site's rows does not help either.
    expect(
      await readAsSite(
        database.db,
        'a',
        async (r) => (await sql<Row>`select site_id, n from site_rows where site_id = ${'b'}`.execute(r)).rows,
      ),
    ).toEqual([]);
    expect(await rowsOf(database.db)).toEqual([]);
    expect(await database.db.selectFrom('events').select('site_id').execute()).toEqual([]);
    // The owner (instance-wide) sees both: the rows are there.
    expect(await all()).toEqual([...A, ...B].sort((x, y) => x.n - y.n));
  });

  it('parses values as node-postgres does on a plain query', async () => {
    const q = (db: Db) =>
      sql<Record<string, unknown>>`
        select 1::int8 as big, 2::int4 as i, 1.5::numeric as num, '{"x":[1,"y"]}'::jsonb as j,
               timestamptz '2024-01-02T03:04:05Z' as t, null::text as z, ${[1, 2]}::int[] as arr, ${'p'}::text as p,
               true as flag, ${JSON.stringify({ k: 'v' })}::jsonb as param`
        .execute(db)
        .then((r) => r.rows);
    const scoped = await readAsSite(database.db, 'a', q);
    expect(scoped).toEqual(await q(database.db));
    expect(scoped).toEqual([
      {
        big: '1',
        i: 2,
        num: '1.5',
        j: { x: [1, 'y'] },
        t: new Date('2024-01-02T03:04:05Z'),
        z: null,
        arr: [1, 2],
        p: 'p',
        flag: true,
        param: { k: 'v' },
      },
    ]);
  });

  it('ends the setting with its statement, on every connection of the pool', async () => {
    const scoped = await Promise.all(
      Array.from({ length: 2 * POOL }, (_, i) => readAsSite(database.db, i % 2 ? 'b' : 'a', slowly)),
    );
    const pids = new Set(scoped.map((r) => r.pid));
    expect(pids.size).toBe(POOL);
    scoped.forEach((r, i) => expect(r.s).toBe(i % 2 ? 'b' : 'a'));
    for (let round = 0; round < 3; round++) {
      const plain = await Promise.all(Array.from({ length: 2 * POOL }, () => slowly(database.db)));
      // The same connections that carried a site a moment ago.
      expect(new Set(plain.map((r) => r.pid))).toEqual(pids);
      for (const r of plain) {
        expect(r.s ?? '').toBe('');
        expect(r).toMatchObject({ sites: null, n: 0 });
      }
      // And one at a time, as a request would, many times over.
      for (let i = 0; i < 3 * POOL; i++) {
        await readAsSite(database.db, i % 2 ? 'b' : 'a', settingOf);
        expect((await settingOf(database.db)) ?? '').toBe('');
      }
    }
  });

  it('checks a single-statement write against the policy, and commits the one it lets through', async () => {
    await expect(
      readAsSite(database.db, 'a', (r) => sql`insert into site_rows (site_id, n) values ('b', 100)`.execute(r)),
    ).rejects.toMatchObject({ code: '42501', message: expect.stringMatching(/row-level security/) });
    const inserted = await readAsSite(database.db, 'a', (r) =>
      sql<Row>`insert into site_rows (site_id, n) values ('a', 101) returning site_id, n`.execute(r),
    );
    expect(inserted.rows).toEqual([{ site_id: 'a', n: 101 }]);
    expect(inserted.numAffectedRows).toBe(1n);
    expect(await readAsSite(database.db, 'a', (r) => rowsOf(r))).toEqual([...A, { site_id: 'a', n: 101 }]);
    expect(await readAsSite(database.db, 'b', (r) => rowsOf(r))).toEqual(B);
    expect((await all()).filter((r) => r.n >= 100)).toEqual([{ site_id: 'a', n: 101 }]);

    // Another site's rows are out of reach of updates and deletes; a row cannot be moved to another site.
    const touched = await readAsSite(database.db, 'a', async (r) => [
      (await sql`update site_rows set note = 'x' where site_id = 'b'`.execute(r)).numAffectedRows,
      (await sql`delete from site_rows where site_id = 'b'`.execute(r)).numAffectedRows,
      (await sql`update site_rows set note = 'mine' where n = 101`.execute(r)).numAffectedRows,
    ]);
    expect(touched).toEqual([0n, 0n, 1n]);
    await expect(
      readAsSite(database.db, 'a', (r) => sql`update site_rows set site_id = 'b' where n = 101`.execute(r)),
    ).rejects.toMatchObject({ code: '42501' });
    const notes = await sql<{ n: number; note: string | null }>`
      select n, note from site_rows where note is not null or site_id = 'b' order by n`.execute(database.owner);
    expect(notes.rows).toEqual([
      { n: 11, note: null },
      { n: 12, note: null },
      { n: 101, note: 'mine' },
    ]);
  });

  it('runs .transaction() on a reader under the reader’s site: its statements commit together or not at all', async () => {
    const inside = await readAsSite(database.db, 'a', async (r) =>
      (r as Kysely<DB>).transaction().execute(async (trx) => {
        const setting = await settingOf(trx);
        const first = await sql<{ x: string }>`
          insert into site_rows (site_id, n) values ('a', 110) returning pg_current_xact_id()::text as x`.execute(trx);
        const second = await sql<{ x: string }>`
          insert into site_rows (site_id, n) values ('a', 111) returning pg_current_xact_id()::text as x`.execute(trx);
        // asSite inside a transaction runs in it as it is; asSystem widens it until it ends.
        const nested = await asSite(trx, 'b', (t) => settingOf(t));
        const system = await asSystem(trx, (t) => rowsOf(t));
        return {
          setting,
          sameTransaction: first.rows[0]!.x === second.rows[0]!.x,
          rows: await rowsOf(trx),
          nested,
          system: system.map((x) => x.site_id),
          settingAfterSystem: await settingOf(trx),
        };
      }),
    );
    expect(inside).toEqual({
      setting: 'a',
      sameTransaction: true,
      rows: [...A, { site_id: 'a', n: 101 }, { site_id: 'a', n: 110 }, { site_id: 'a', n: 111 }],
      nested: 'a',
      system: ['a', 'a', 'a', 'b', 'b', 'a', 'a', 'a'],
      settingAfterSystem: 'a',
    });
    expect((await all()).filter((r) => r.n >= 110)).toEqual([
      { site_id: 'a', n: 110 },
      { site_id: 'a', n: 111 },
    ]);

    // A thrown error rolls every statement back.
    await expect(
      readAsSite(database.db, 'a', (r) =>
        (r as Kysely<DB>).transaction().execute(async (trx) => {
          await sql`insert into site_rows (site_id, n) values ('a', 120)`.execute(trx);
          await sql`insert into site_rows (site_id, n) values ('a', 121)`.execute(trx);
          expect((await rowsOf(trx)).filter((x) => x.n >= 120)).toHaveLength(2);
          throw new Error('changed my mind');
        }),
      ),
    ).rejects.toThrow('changed my mind');
    // So does a statement the policy refuses, and the earlier ones of the transaction go with it.
    await expect(
      readAsSite(database.db, 'a', (r) =>
        (r as Kysely<DB>).transaction().execute(async (trx) => {
          await sql`insert into site_rows (site_id, n) values ('a', 122)`.execute(trx);
          await sql`insert into site_rows (site_id, n) values ('b', 123)`.execute(trx);
        }),
      ),
    ).rejects.toMatchObject({ code: '42501' });
    expect((await all()).filter((r) => r.n >= 120)).toEqual([]);

    // The reader goes on one statement at a time after its transactions, and their setting is gone.
    expect(
      await readAsSite(database.db, 'b', async (r) => {
        await (r as Kysely<DB>).transaction().execute((trx) => settingOf(trx));
        return { setting: await settingOf(r), rows: await rowsOf(r), isTransaction: r.isTransaction };
      }),
    ).toEqual({ setting: 'b', rows: B, isTransaction: false });
    const plain = await Promise.all(Array.from({ length: 2 * POOL }, () => slowly(database.db)));
    for (const r of plain) expect(r.s ?? '').toBe('');
  });

  it('reads every site’s rows with asSystem, and another site’s inside a site’s read (nested readers)', async () => {
    const everything = await asSystem(database.db, async (r) => ({
      isTransaction: r.isTransaction,
      setting: await settingOf(r),
      rows: await rowsOf(r),
    }));
    expect(everything).toEqual({ isTransaction: false, setting: '_system', rows: await all() });
    expect(new Set(everything.rows.map((r) => r.site_id))).toEqual(new Set(['a', 'b']));

    const nested = await readAsSite(database.db, 'a', async (ra) => {
      const before = await rowsOf(ra);
      const other = await asSite(ra, 'b', async (rb) => ({ rows: await rowsOf(rb), setting: await settingOf(rb) }));
      const system = await asSystem(ra, (rs) => rowsOf(rs));
      const deeper = await asSite(ra, 'b', (rb) => asSite(rb, 'a', (ra2) => rowsOf(ra2)));
      return { before, other, system, deeper, after: await rowsOf(ra), setting: await settingOf(ra) };
    });
    const ofA = (await all()).filter((r) => r.site_id === 'a');
    expect(nested).toEqual({
      before: ofA,
      other: { rows: B, setting: 'b' },
      system: await all(),
      deeper: ofA,
      after: ofA,
      setting: 'a',
    });
  });

  it('keeps 200 concurrent reads of two sites apart on the pooled connections, failing ones among them', async () => {
    const ofA = (await all()).filter((r) => r.site_id === 'a');
    const read = (site: string) =>
      readAsSite(database.db, site, async (r) => ({
        ...(await sql<{ s: string; pid: number }>`
          select current_setting('svc.site_id', true) as s, pg_backend_pid() as pid`
          .execute(r)
          .then((x) => x.rows[0]!)),
        rows: await rowsOf(r),
      }));
    const results = await Promise.all(Array.from({ length: 200 }, (_, i) => read(i % 2 ? 'b' : 'a')));
    results.forEach((r, i) => {
      const site = i % 2 ? 'b' : 'a';
      expect(r.s).toBe(site);
      expect(r.rows).toEqual(site === 'a' ? ofA : B);
    });
    expect(new Set(results.map((r) => r.pid)).size).toBeGreaterThan(1);

    // Again, with every seventh statement failing in between.
    const mixed = await Promise.allSettled(
      Array.from({ length: 200 }, (_, i) =>
        i % 7 === 0
          ? readAsSite(database.db, 'a', (r) => sql`select 1/0 as x`.execute(r))
          : readAsSite(database.db, i % 2 ? 'b' : 'a', (r) => rowsOf(r)),
      ),
    );
    mixed.forEach((r, i) => {
      if (i % 7 === 0) expect(r).toMatchObject({ status: 'rejected', reason: { code: '22012' } });
      else expect(r).toEqual({ status: 'fulfilled', value: i % 2 ? B : ofA });
    });
  });

  it('runs withSite on the serving connection under the site: begin and the setting travel with the first statement', async () => {
    const c = (n: number) => ({ site_id: 'c', n });
    const ofC = async () => (await all()).filter((r) => r.site_id === 'c');
    const inside = await withSite(database.db, 'c', async (trx) => {
      const setting = await settingOf(trx);
      await sql`insert into site_rows (site_id, n) values ('c', 130)`.execute(trx);
      await sql`insert into site_rows (site_id, n) values ('c', 131)`.execute(trx);
      const system = await asSystem(trx, (t) => rowsOf(t));
      return { setting, rows: await rowsOf(trx), system: system.length, after: await settingOf(trx) };
    });
    expect(inside).toEqual({ setting: 'c', rows: [c(130), c(131)], system: (await all()).length, after: 'c' });
    expect(await ofC()).toEqual([c(130), c(131)]);

    // Whatever fails, first statement or later, thrown or refused, takes the whole transaction with it.
    await expect(withSite(database.db, 'c', (trx) => sql`select 1/0 as x`.execute(trx))).rejects.toMatchObject({
      code: '22012',
    });
    await expect(
      withSite(database.db, 'c', async (trx) => {
        await sql`insert into site_rows (site_id, n) values ('c', 140)`.execute(trx);
        await sql`select 1/0 as x`.execute(trx);
      }),
    ).rejects.toMatchObject({ code: '22012' });
    await expect(
      withSite(database.db, 'c', async (trx) => {
        await sql`insert into site_rows (site_id, n) values ('c', 141)`.execute(trx);
        await sql`insert into site_rows (site_id, n) values ('a', 142)`.execute(trx);
      }),
    ).rejects.toMatchObject({ code: '42501' });
    await expect(
      withSite(database.db, 'c', async (trx) => {
        await sql`insert into site_rows (site_id, n) values ('c', 143)`.execute(trx);
        throw new Error('changed my mind');
      }),
    ).rejects.toThrow('changed my mind');
    expect(await ofC()).toEqual([c(130), c(131)]);
    // No transaction, statement or setting is left behind on any connection.
    const plain = await Promise.all(Array.from({ length: 2 * POOL }, () => slowly(database.db)));
    expect(new Set(plain.map((r) => r.pid)).size).toBe(POOL);
    for (const r of plain) expect({ ...r, s: r.s ?? '' }).toMatchObject({ s: '', sites: null, n: 0 });
    const busy = await sql<{ n: number }>`
      select count(*)::int as n from pg_stat_activity
      where application_name = ${`content-service:${database.schema}`} and state <> 'idle'
        and pid <> pg_backend_pid()`.execute(database.owner);
    expect(busy.rows[0]!.n).toBe(0);
  });

  it('commits concurrent appends on the serving connection in groups, each in its savepoint, the failing ones alone', async () => {
    const store = new PgEventStore(database.db);
    const metadata = systemMetadata('c');
    const taken = randomUUID();
    await store.append('c/thing/taken', [{ type: 'Made', data: {}, eventId: taken, metadata }], {
      expectedVersion: 'no_stream',
    });
    const kind = (i: number) => (i % 10 === 3 ? 'stale' : i % 10 === 7 ? 'duplicate' : 'ok');
    const outcomes = await Promise.allSettled(
      Array.from({ length: 40 }, (_, i) =>
        kind(i) === 'stale'
          ? store.append(`c/thing/g${i}`, [{ type: 'Made', data: { i }, metadata }], { expectedVersion: 5 })
          : store.append(
              `c/thing/g${i}`,
              [{ type: 'Made', data: { i }, metadata, eventId: kind(i) === 'duplicate' ? taken : undefined }],
              { expectedVersion: 'no_stream' },
            ),
      ),
    );
    outcomes.forEach((o, i) => {
      if (kind(i) === 'ok') expect(o).toMatchObject({ status: 'fulfilled', value: { nextExpectedVersion: 1 } });
      else expect(o.status).toBe('rejected');
    });
    const ok = outcomes.flatMap((_, i) => (kind(i) === 'ok' ? [`c/thing/g${i}`] : [])).sort();
    const logged = await sql<{ stream_id: string }>`
      select stream_id from events where stream_id like 'c/thing/g%' order by stream_id`.execute(database.owner);
    expect(logged.rows.map((r) => r.stream_id)).toEqual(ok);
    const versions = await sql<{ stream_id: string }>`
      select stream_id from streams where stream_id like 'c/thing/g%' order by stream_id`.execute(database.owner);
    expect(versions.rows.map((r) => r.stream_id)).toEqual(ok);
  });

  /** A database handle on the same schema whose serving pool has one connection, so every statement shares it. */
  const onePool = () =>
    createDatabase({ kind: 'postgres', url: servingUrl(url!), ownerUrl: url, schema: database.schema!, poolSize: 1 });

  it('rolls back after a failure inside asSystem in a transaction: the error is the failure, the connection clean', async () => {
    const one = await onePool();
    try {
      // asSystem's restore of the caller's setting waits to go with the next statement, which is the rollback.
      const err = await withSite(one.db, 'a', (trx) => asSystem(trx, (d) => sql`select 1 / 0 as x`.execute(d))).catch(
        (e: unknown) => e,
      );
      expect(err).toMatchObject({ code: '22012' });
      expect(await readAsSite(one.db, 'a', settingOf)).toBe('a');
      const state = await sql<{ state: string }>`select state from pg_stat_activity where datname = current_database()
        and application_name = ${`content-service:${database.schema}`} and pid <> pg_backend_pid()`.execute(
        database.owner,
      );
      expect(state.rows.map((r) => r.state).filter((x) => x.includes('transaction'))).toEqual([]);
    } finally {
      await one.close();
    }
  });

  it('fails only the append whose instance-wide projector fails, in a group of concurrent appends', async () => {
    const one = await onePool();
    const meta = systemMetadata('a');
    const failing = {
      name: 'failing-probe',
      version: 1,
      mode: 'inline' as const,
      instanceWide: true,
      tables: [],
      handles: ['Poison'],
      createTables: async () => undefined,
      apply: async (trx: Db) => {
        await sql`select 1 / 0`.execute(trx);
      },
    };
    const store = new PgEventStore(one.db, [failing as never]);
    try {
      const outcomes = await Promise.all(
        Array.from({ length: 30 }, (_, i) =>
          store
            .append(`a/probe/${randomUUID()}`, [{ type: i === 15 ? 'Poison' : 'Fine', data: {}, metadata: meta }], {
              expectedVersion: 'no_stream',
            })
            .then(
              () => 'ok',
              (e: { code?: string }) => e.code ?? 'error',
            ),
        ),
      );
      expect(outcomes.filter((o) => o !== 'ok')).toEqual(['22012']);
      expect(outcomes[15]).toBe('22012');
      expect(await readAsSite(one.db, 'a', settingOf)).toBe('a');
    } finally {
      await one.close();
    }
  });

  it('fails only the append whose deferred read-model write fails, though it rides with the next append of its group', async () => {
    await siteTable('deferred_rows', []);
    const one = await onePool();
    const meta = systemMetadata('a');
    // Each event's row is written with the transaction's next statement; a Poison one's fails there.
    const deferring = {
      name: 'deferring-probe',
      version: 1,
      mode: 'inline' as const,
      tables: [],
      handles: ['Fine', 'Poison', 'Unsendable'],
      createTables: async () => undefined,
      apply: async (trx: Db, e: { type: string; data: { i: number } }) => {
        const n = e.type === 'Poison' ? sql`${e.data.i} / ${0}::int` : sql`${e.data.i}::int`;
        // node-postgres cannot send a bigint inside an object: it throws as the next write's statement goes out.
        const note = e.type === 'Unsendable' ? { big: 1n } : null;
        await later(trx as never, {
          compile: () => sql`insert into deferred_rows (site_id, n, note) values ('a', ${n}, ${note})`.compile(trx),
        });
      },
    };
    const store = new PgEventStore(one.db, [deferring as never]);
    const kind = (i: number) =>
      i === 15 ? 'poison' : i === 21 ? 'unsendable' : i === 9 ? 'unsendable-deferred' : 'fine';
    try {
      const outcomes = await Promise.all(
        Array.from({ length: 30 }, (_, i) =>
          store
            .append(
              `a/deferred/${i}`,
              [
                {
                  type: kind(i) === 'poison' ? 'Poison' : kind(i) === 'unsendable-deferred' ? 'Unsendable' : 'Fine',
                  // A value node-postgres cannot send fails before anything of this append goes out.
                  data: kind(i) === 'unsendable' ? { i, big: 1n } : { i },
                  metadata: meta,
                },
              ],
              { expectedVersion: 'no_stream' },
            )
            .then(
              () => 'ok',
              (e: { code?: string; name?: string }) => e.code ?? e.name ?? 'error',
            ),
        ),
      );
      expect(outcomes.flatMap((o, i) => (o === 'ok' ? [] : [[i, o]]))).toEqual([
        [9, 'TypeError'],
        [15, '22012'],
        [21, 'TypeError'],
      ]);
      const fine = Array.from({ length: 30 }, (_, i) => i).filter((i) => kind(i) === 'fine');
      const rows = await sql<{ n: number }>`select n from deferred_rows order by n`.execute(database.owner);
      expect(rows.rows.map((r) => r.n)).toEqual(fine);
      const logged = await sql<{ stream_id: string }>`
        select stream_id from events where stream_id like 'a/deferred/%'`.execute(database.owner);
      expect(logged.rows.map((r) => Number(r.stream_id.split('/')[2])).sort((a, b) => a - b)).toEqual(fine);
    } finally {
      await one.close();
    }
  });

  it('parses its set_config statement again on a connection that lost it (DEALLOCATE ALL)', async () => {
    const one = await onePool();
    try {
      expect(await readAsSite(one.db, 'a', settingOf)).toBe('a');
      await sql`deallocate all`.execute(one.db);
      // The statement right after may fail for want of it, with that error and no other; the ones after it work.
      const first = await readAsSite(one.db, 'a', settingOf).catch((err: unknown) => err);
      if (first !== 'a') expect(first).toMatchObject({ code: '26000' });
      for (let i = 0; i < 4; i++) {
        const site = i % 2 ? 'b' : 'a';
        expect(await readAsSite(one.db, site, settingOf)).toBe(site);
      }
      expect((await settingOf(one.db)) ?? '').toBe('');
    } finally {
      await one.close();
    }
  });

  // Last: when it fails, it leaves a connection that never answers (on a pool of its own, freed below).
  it('survives a parameter that cannot be sent, as a plain query does: the connection goes on answering', async () => {
    const one = await onePool();
    const pid = (await one.pool.query<{ pid: number }>('select pg_backend_pid() as pid')).rows[0]!.pid;
    const timely = <T>(p: Promise<T>) =>
      Promise.race([p, new Promise<'no answer'>((resolve) => setTimeout(() => resolve('no answer'), 3000).unref())]);
    // node-postgres cannot send a bigint inside an object (JSON.stringify throws): it refuses before sending it.
    const unsendable = { n: 1n };
    try {
      // A plain query is refused, and the connection goes on.
      await expect(sql`select ${unsendable}::jsonb as j`.execute(one.db)).rejects.toThrow(/BigInt/);
      expect(await timely(sql<{ one: number }>`select 1 as one`.execute(one.db).then((r) => r.rows))).toEqual([
        { one: 1 },
      ]);
      // So must a scoped one be: refused, and the next statement on the (only) connection answered.
      await expect(readAsSite(one.db, 'a', (r) => sql`select ${unsendable}::jsonb as j`.execute(r))).rejects.toThrow(
        /BigInt/,
      );
      expect(await timely(readAsSite(one.db, 'a', (r) => rowsOf(r)))).toEqual(
        (await all()).filter((r) => r.site_id === 'a'),
      );
    } finally {
      // Frees a connection left waiting mid-pipeline (it shows as active, in a transaction), so the pool can close.
      await sql`select pg_terminate_backend(pid) from pg_stat_activity where pid = ${pid} and state <> 'idle'`.execute(
        database.owner,
      );
      await one.close();
    }
  });

  it('survives a parameter that cannot be sent with a transaction’s deferred statements on the serving connection', async () => {
    const one = await onePool();
    const pid = (await one.pool.query<{ pid: number }>('select pg_backend_pid() as pid')).rows[0]!.pid;
    const unsendable = { n: 1n };
    try {
      const outcome = await Promise.race([
        // The first statement of the transaction: `begin` and the site setting travel with it.
        withSite(one.db, 'a', (trx) => sql`select ${unsendable}::jsonb as j`.execute(trx)).then(
          () => 'committed',
          (err: Error) => err.message,
        ),
        new Promise<string>((resolve) => setTimeout(() => resolve('no answer'), 3000).unref()),
      ]);
      expect(outcome).toMatch(/BigInt/);
    } finally {
      await sql`select pg_terminate_backend(pid) from pg_stat_activity where pid = ${pid} and state <> 'idle'`.execute(
        database.owner,
      );
      await one.close();
    }
  });
});

describe.skipIf(!url)('named statements on PostgreSQL', () => {
  const onePool = () =>
    createDatabase({ kind: 'postgres', url: servingUrl(url!), ownerUrl: url, schema: database.schema!, poolSize: 1 });
  type Prepared = { statement: string; runs: number };
  /** The session's own named statements (the view shows only those of the connection asking). */
  const preparedOn = async (db: Db, like: string) =>
    (
      await sql<Prepared>`select statement, (generic_plans + custom_plans)::int as runs from pg_prepared_statements
        where statement like ${`%${like}%`} and statement not like '%pg_prepared_statements%'`.execute(db)
    ).rows;

  beforeAll(async () => {
    await siteTable('named_rows', [
      ['a', 1],
      ['a', 2],
    ]);
  });

  it('parses a fixed-shape statement once per connection and then only binds it', async () => {
    const one = await onePool();
    try {
      for (let i = 0; i < 5; i++)
        expect(
          (await readAsSite(one.db, 'a', (r) => sql`select n from named_rows where n > ${i % 2}`.execute(r))).rows
            .length,
        ).toBe(2 - (i % 2));
      expect(await preparedOn(one.db, 'from named_rows where n >')).toEqual([
        { statement: 'select n from named_rows where n > $1', runs: 5 },
      ]);
      // A JSON-field expression is planned against its constants every time: never named.
      await readAsSite(one.db, 'a', (r) =>
        sql`select n from named_rows where ('{"k":1}'::jsonb ->> 'k')::int = ${1}`.execute(r),
      );
      expect(await preparedOn(one.db, "->> 'k'")).toEqual([]);
    } finally {
      await one.close();
    }
  });

  it('forgets and closes a name whose statement failed, so failures leave no statement behind', async () => {
    const one = await onePool();
    try {
      for (let i = 0; i < 5; i++) {
        // Parsed, then failing as it runs.
        const err = await readAsSite(one.db, 'a', (r) => sql`select n / ${0}::int from named_rows`.execute(r)).catch(
          (e: unknown) => e,
        );
        expect(err).toMatchObject({ code: '22012' });
        // Failing to parse.
        const bad = await readAsSite(one.db, 'a', (r) => sql`select n from named_rows wher n = ${1}`.execute(r)).catch(
          (e: unknown) => e,
        );
        expect(bad).toMatchObject({ code: '42601' });
      }
      expect(
        (await readAsSite(one.db, 'a', (r) => sql`select n from named_rows where n = ${2}`.execute(r))).rows,
      ).toEqual([{ n: 2 }]);
      expect(await preparedOn(one.db, 'named_rows')).toEqual([
        { statement: 'select n from named_rows where n = $1', runs: 1 },
      ]);
    } finally {
      await one.close();
    }
  });

  it('keeps at most 200 per connection, closing the least recently used', async () => {
    const one = await onePool();
    try {
      const first = (r: Db) => sql`select n from named_rows where n >= ${0} and true`.execute(r);
      await readAsSite(one.db, 'a', first);
      for (let i = 0; i < 210; i++) {
        await readAsSite(one.db, 'a', (r) =>
          sql`select n + ${sql.raw(String(i))} from named_rows where n > ${0}`.execute(r),
        );
        // Used again and again: never the least recently used.
        if (i % 50 === 0) await readAsSite(one.db, 'a', first);
      }
      const named = await preparedOn(one.db, 'named_rows');
      expect(named.length).toBeLessThanOrEqual(200);
      expect(named.length).toBeGreaterThan(190);
      expect(named.map((p) => p.statement)).toContain('select n from named_rows where n >= $1 and true');
      expect(named.map((p) => p.statement)).not.toContain('select n + 0 from named_rows where n > $1');
    } finally {
      await one.close();
    }
  });

  it('parses every statement again on a connection that lost them (DEALLOCATE ALL)', async () => {
    const one = await onePool();
    try {
      const read = () => readAsSite(one.db, 'a', (r) => sql`select n from named_rows where n < ${10}`.execute(r));
      expect((await read()).rows).toHaveLength(2);
      await sql`deallocate all`.execute(one.db);
      const first = await read().catch((err: unknown) => err);
      if (!(first as { rows?: unknown }).rows) expect(first).toMatchObject({ code: '26000' });
      for (let i = 0; i < 3; i++) expect((await read()).rows).toHaveLength(2);
      expect(await preparedOn(one.db, 'where n < $1')).toHaveLength(1);
    } finally {
      await one.close();
    }
  });
});
