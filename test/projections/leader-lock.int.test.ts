import { systemMetadata } from '../support/metadata.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pino from 'pino';
import { sql } from 'kysely';
import { startLogFeed } from '../../src/platform/es/log-feed.ts';
import { startLeaderLoop } from '../../src/platform/leader-loop.ts';
import { LeaderLock } from '../../src/kernel/db/leader-lock.ts';
import { PgLockSession } from '../../src/adapters/db/pg-lock-session.ts';
import { siteActivityProjector } from '../../projections/site-activity/site-activity.projector.ts';
import { createTestApp, type TestApp } from '../setup/app.ts';
import { randomUUID } from 'node:crypto';
import { defineReactor } from '../../src/kernel/es/reactor.ts';
import type { DomainEvent, NewEvent } from '../../src/kernel/es/event.ts';
import { PgEventStore } from '../../src/adapters/event-store/pg-event-store.ts';
import { PgVersionChannel } from '../../src/adapters/db/version-channel.ts';
import { placeReactors } from '../../src/platform/es/reactor-state.ts';

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
      reactors: [],
      log,
      active: true,
      sweepMs: 100,
    };
    // The second node has a lock session of its own, as another process would.
    const otherNode = new PgLockSession(t.deps.database.pool.options);
    const a = startLogFeed(opts);
    await new Promise((r) => setTimeout(r, 200));
    const b = startLogFeed({ ...opts, locks: otherNode });
    const holders = async () =>
      Number(
        (
          await sql<{ n: string }>`select count(*)::text as n from pg_locks where locktype = 'advisory' and granted
           and objid = (hashtext(current_schema() || ':log-feed'))::oid`.execute(t.deps.db)
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

  it("wakes the leading node's feed at once when another node appends (no wait for the sweep)", async () => {
    const log = pino({ level: 'silent' });
    const heard: string[] = [];
    const reactor = defineReactor<DomainEvent<'Pinged', { n: number }>, null, string>({
      name: `pinged-${randomUUID()}`,
      handles: ['Pinged'],
      load: async () => null,
      react: (e) => [e.eventId],
      send: async (id) => void heard.push(id),
    });
    // Two nodes: each its own store object (an append on one is not heard by the other's listeners), lock session
    // and channel, as two processes would have.
    const storeA = new PgEventStore(t.deps.db);
    const storeB = new PgEventStore(t.deps.db);
    const channelA = new PgVersionChannel(t.deps.database.pool);
    const channelB = new PgVersionChannel(t.deps.database.pool);
    await channelA.start();
    await channelB.start();
    const nodes = (c: PgVersionChannel) => ({
      subscribe: (wake: () => void) => c.onLog(wake),
      poke: () => c.pokeLog(),
    });
    const otherNode = new PgLockSession(t.deps.database.pool.options);
    await placeReactors(t.deps.db, storeA, [reactor]);
    const base = { db: t.deps.db, projectors: [], reactors: [reactor], log, active: true, sweepMs: 60_000 };
    const a = startLogFeed({ ...base, events: storeA, locks: t.deps.database.locks, nodes: nodes(channelA) });
    await new Promise((r) => setTimeout(r, 200));
    const b = startLogFeed({ ...base, events: storeB, locks: otherNode, nodes: nodes(channelB) });
    const appended = await storeB.append(
      `main/ping/${randomUUID()}`,
      [
        {
          type: 'Pinged',
          data: { n: 1 },
          metadata: systemMetadata('main'),
        } as NewEvent,
      ],
      { expectedVersion: 'no_stream' },
    );
    for (let i = 0; i < 200 && heard.length === 0; i++) await new Promise((r) => setTimeout(r, 10));
    expect(heard).toEqual([appended.events[0]!.eventId]);
    await b.stop();
    await a.stop();
    await channelA.close();
    await channelB.close();
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
