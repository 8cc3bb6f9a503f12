import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pino from 'pino';
import { sql } from 'kysely';
import { startAsyncProjections } from '../../src/platform/es/async-projections.ts';
import { startLeaderLoop } from '../../src/platform/leader-loop.ts';
import { LeaderLock } from '../../src/kernel/db/leader-lock.ts';
import { PgLockSession } from '../../src/adapters/db/pg-lock-session.ts';
import { siteActivityProjector } from '../../projections/site-activity/site-activity.projector.ts';
import { createTestApp, type TestApp } from '../setup/app.ts';

const onPostgres = Boolean(process.env.TEST_DATABASE_URL);
if (!onPostgres)
  console.info('leader-lock test skipped: it needs TEST_DATABASE_URL (PGlite has one process per data directory)');

describe.skipIf(!onPostgres)('async projections leader lock', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
    await t.setup();
  });
  afterAll(() => t.close());

  it('lets one of two nodes project, and the other take over when it stops', async () => {
    const log = pino({ level: 'silent' });
    const opts = {
      db: t.deps.db,
      events: t.deps.store,
      locks: t.deps.database.locks,
      projectors: [siteActivityProjector],
      log,
      pollMs: 20,
    };
    // The second node has a lock session of its own, as another process would.
    const otherNode = new PgLockSession(t.deps.database.pool.options);
    const a = startAsyncProjections(opts);
    await new Promise((r) => setTimeout(r, 200));
    const b = startAsyncProjections({ ...opts, locks: otherNode });
    const holders = async () =>
      Number(
        (
          await sql<{ n: string }>`select count(*)::text as n from pg_locks where locktype = 'advisory' and granted
           and objid = (hashtext(current_schema() || ':async-projections'))::oid`.execute(t.deps.db)
        ).rows[0]!.n,
      );
    expect(await holders()).toBe(1);
    await a.stop();
    await new Promise((r) => setTimeout(r, 300));
    expect(await holders()).toBe(1);
    const lag = (await t.deps.engine.status()).find((s) => s.name === 'site-activity')!.lag;
    expect(lag).toBe(0);
    await b.stop();
    await otherNode.close();
  });

  it('gives the lock and its connection back when a run fails, so another node leads next', async () => {
    const pool = t.deps.database.pool;
    const idleBefore = pool.totalCount - pool.idleCount;
    let runs = 0;
    const loop = startLeaderLoop({
      name: 'failing-loop',
      locks: t.deps.database.locks,
      intervalMs: 20,
      log: pino({ level: 'silent' }),
      run: async () => {
        runs++;
        throw new Error('boom');
      },
    });
    await new Promise((r) => setTimeout(r, 300));
    const otherNode = new PgLockSession(pool.options);
    const other = new LeaderLock(otherNode, ':failing-loop');
    // Between two failed runs the lock is free: the other node takes it within a few tries.
    let took = false;
    for (let i = 0; i < 50 && !took; i++) {
      took = await other.acquire();
      if (!took) await new Promise((r) => setTimeout(r, 5));
    }
    expect(runs).toBeGreaterThan(1);
    expect(took).toBe(true);
    await loop.stop();
    await other.release();
    await otherNode.close();
    // No checked-out connection is left behind by the failures.
    expect(pool.totalCount - pool.idleCount).toBe(idleBefore);
  });

  it('destroys a lock connection that breaks, and leads again on a fresh one', async () => {
    const lock = new LeaderLock(t.deps.database.locks, ':broken-loop');
    expect(await lock.acquire()).toBe(true);
    const pid = (
      await sql<{ pid: number }>`select pid from pg_locks where locktype = 'advisory' and granted
      and objid = (hashtext(current_schema() || ':broken-loop'))::oid`.execute(t.deps.db)
    ).rows[0]!.pid;
    await sql`select pg_terminate_backend(${pid})`.execute(t.deps.db);
    await new Promise((r) => setTimeout(r, 200));
    expect(await lock.acquire()).toBe(true);
    await lock.release();
  });
});
