import { systemMetadata } from '../../../test/support/metadata.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { openTestDatabase } from '../../../test/setup/db.ts';
import { PgVersionChannel } from '../../adapters/db/version-channel.ts';
import type { NewEvent } from '../../kernel/es/event.ts';
import type { EventStore } from '../../kernel/es/event-store.ts';
import { PgEventStore } from '../../adapters/event-store/pg-event-store.ts';
import { singleNode, VersionCachedStore, type VersionChannel } from './version-cache.ts';

/**
 * The versions of the watched streams (a site's schema and access model) kept in memory over a real event store:
 * read once, moved on by this node's appends at once, by other nodes' NOTIFY within its delivery, and at most
 * maxAgeMs late otherwise.
 */
const url = process.env.TEST_DATABASE_URL;
const watched = (id: string) => /^[^/]+\/(schema|access)\//.test(id);
const metadata = systemMetadata('vc');
const events = (n: number): NewEvent[] =>
  Array.from({ length: n }, (_, i) => ({ type: 'Touched', data: { i }, metadata }));

let database: Awaited<ReturnType<typeof openTestDatabase>>;
/** The store the caches below are put over (their appends go through it, and the caches hear them). */
let store: PgEventStore;
/** Another writer on the same database, which no cache hears: as another node without a channel would be. */
let behind: PgEventStore;
/** Reads that reached the store, by stream, through `counted(store)`. */
let reads: string[];
let clock = 0;
const now = () => clock;

/** The store, with each `streamVersion` that reaches it noted. */
function counted(inner: EventStore): EventStore {
  return Object.assign(Object.create(inner) as EventStore, {
    streamVersion: (id: string) => {
      reads.push(id);
      return inner.streamVersion(id);
    },
  });
}

const cacheOver = (opts: { maxAgeMs?: number; channel?: VersionChannel; maxEntries?: number } = {}) =>
  new VersionCachedStore(counted(store), opts.channel ?? singleNode, {
    watched,
    maxAgeMs: opts.maxAgeMs ?? 1000,
    maxEntries: opts.maxEntries,
    now,
  });

/** Appends `n` events behind the caches' backs; returns the stream's version after. */
const appendBehind = async (streamId: string, n = 1) =>
  (await behind.append(streamId, events(n), { expectedVersion: 'any' })).nextExpectedVersion;

beforeAll(async () => {
  database = await openTestDatabase();
  store = new PgEventStore(database.db);
  behind = new PgEventStore(database.db);
  reads = [];
});
afterAll(() => database?.drop());

describe('VersionCachedStore on one node (singleNode channel)', () => {
  it('reads a watched stream’s version from the store once, then answers from memory until maxAgeMs has passed', async () => {
    const s = 'vc/schema/once';
    expect(await appendBehind(s)).toBe(1);
    const cache = cacheOver({ maxAgeMs: 1000 });
    reads.length = 0;
    expect(await cache.streamVersion(s)).toBe(1);
    expect(await cache.streamVersion(s)).toBe(1);
    expect(reads).toEqual([s]);

    expect(await appendBehind(s, 2)).toBe(3);
    expect(await store.streamVersion(s)).toBe(3);
    reads.length = 0;
    expect(await cache.streamVersion(s)).toBe(1);
    clock += 999;
    expect(await cache.streamVersion(s)).toBe(1);
    expect(reads).toEqual([]);
    clock += 1;
    expect(await cache.streamVersion(s)).toBe(3);
    expect(await cache.streamVersion(s)).toBe(3);
    expect(reads).toEqual([s]);
  });

  it('keeps a stream that does not exist yet as such, until maxAgeMs', async () => {
    const s = 'vc/access/later';
    const cache = cacheOver({ maxAgeMs: 1000 });
    reads.length = 0;
    expect(await cache.streamVersion(s)).toBeNull();
    await appendBehind(s);
    expect(await cache.streamVersion(s)).toBeNull();
    expect(reads).toEqual([s]);
    clock += 1000;
    expect(await cache.streamVersion(s)).toBe(1);
  });

  it('moves a watched stream on at once with an append through it (or through the store it is over)', async () => {
    const s = 'vc/schema/own';
    const t = 'vc/access/own';
    await appendBehind(s, 3);
    const cache = cacheOver({ maxAgeMs: 1000 });
    expect(await cache.streamVersion(s)).toBe(3);
    reads.length = 0;
    const appended = await cache.append(s, events(2), { expectedVersion: 3 });
    expect(appended.nextExpectedVersion).toBe(5);
    // Right after the append answers, with no time gone by and no read of the store.
    expect(await cache.streamVersion(s)).toBe(5);
    expect(reads).toEqual([]);

    expect(await cache.streamVersion(t)).toBeNull();
    await cache.appendMany([
      { streamId: s, events: events(1), expectedVersion: 5 },
      { streamId: t, events: events(2), expectedVersion: 'no_stream' },
    ]);
    expect([await cache.streamVersion(s), await cache.streamVersion(t)]).toEqual([6, 2]);
    // The cache listens to the store it is over, so that store's own appends move it on too.
    await store.append(s, events(1), { expectedVersion: 6 });
    expect(await cache.streamVersion(s)).toBe(7);
    expect(reads).toEqual([t]);
  });

  it('reads an unwatched stream from the store every time', async () => {
    const s = 'vc/item/1';
    const cache = cacheOver({ maxAgeMs: 60_000 });
    reads.length = 0;
    expect(await cache.streamVersion(s)).toBeNull();
    expect(await appendBehind(s)).toBe(1);
    expect(await cache.streamVersion(s)).toBe(1);
    await cache.append(s, events(1), { expectedVersion: 1 });
    expect(await appendBehind(s)).toBe(3);
    expect(await cache.streamVersion(s)).toBe(3);
    expect(reads).toEqual([s, s, s]);
  });

  it('does not cache at all with maxAgeMs 0', async () => {
    const s = 'vc/schema/nocache';
    const cache = cacheOver({ maxAgeMs: 0 });
    reads.length = 0;
    expect(await cache.streamVersion(s)).toBeNull();
    await appendBehind(s);
    expect(await cache.streamVersion(s)).toBe(1);
    await appendBehind(s, 2);
    expect(await cache.streamVersion(s)).toBe(3);
    expect(reads).toEqual([s, s, s]);
  });

  it('keeps at most maxEntries streams, dropping the one it learnt of longest ago', async () => {
    const [s1, s2, s3] = ['vc/schema/e1', 'vc/schema/e2', 'vc/schema/e3'];
    for (const s of [s1, s2, s3]) await appendBehind(s);
    const cache = cacheOver({ maxAgeMs: 60_000, maxEntries: 2 });
    for (const s of [s1, s2, s3]) expect(await cache.streamVersion(s)).toBe(1);
    for (const s of [s1, s2, s3]) await appendBehind(s);
    reads.length = 0;
    expect(await cache.streamVersion(s3)).toBe(1);
    expect(await cache.streamVersion(s2)).toBe(1);
    expect(reads).toEqual([]);
    expect(await cache.streamVersion(s1)).toBe(2);
    expect(reads).toEqual([s1]);
  });
});

/** A channel of the test's own: what the cache publishes, and messages from "other nodes" delivered by hand. */
function handChannel() {
  const published: [string, number][] = [];
  let onVersion: (s: string, v: number) => void = () => undefined;
  let onReset: () => void = () => undefined;
  const channel: VersionChannel & { live: boolean } = {
    live: true,
    publish: (s, v) => void published.push([s, v]),
    listen: (v, r) => {
      onVersion = v;
      onReset = r;
    },
    pokeLog: () => undefined,
    onLog: () => () => undefined,
    close: async () => undefined,
  };
  return {
    channel,
    published,
    deliver: (s: string, v: number) => onVersion(s, v),
    reset: () => onReset(),
  };
}

describe('VersionCachedStore: news only moves a version forward; a read replaces a version no append made', () => {
  it('never shows a lower version from a message, and drops a forged higher one at the next read', async () => {
    const s = 'vc/schema/grow';
    const hand = handChannel();
    const cache = cacheOver({ maxAgeMs: 1000, channel: hand.channel });
    await appendBehind(s, 3);
    expect(await cache.streamVersion(s)).toBe(3);
    reads.length = 0;
    hand.deliver(s, 1);
    hand.deliver(s, 2);
    expect(await cache.streamVersion(s)).toBe(3);
    hand.deliver(s, 5);
    expect(await cache.streamVersion(s)).toBe(5);
    expect(reads).toEqual([]);
    // Past maxAgeMs the store is read again: it says 3, and no news arrived while it was read, so 3 stands (the 5 was
    // a message no append made: stray, or forged by any role that may NOTIFY).
    clock += 1000;
    expect(await cache.streamVersion(s)).toBe(3);
    expect(reads).toEqual([s]);
    // An append through the cache after a forged message: the forged value lasts until the next read, no longer.
    hand.deliver(s, 1_000_000);
    await cache.append(s, events(1), { expectedVersion: 3 });
    expect(await cache.streamVersion(s)).toBe(1_000_000);
    clock += 1000;
    expect(await cache.streamVersion(s)).toBe(4);
    // Messages about streams that are not watched are not kept.
    hand.deliver('vc/item/grow', 9);
    expect(await cache.streamVersion('vc/item/grow')).toBeNull();
  });

  it('does not let a read that was slower than an append put the older version back', async () => {
    const s = 'vc/access/slow';
    await appendBehind(s, 3);
    let read!: () => void;
    const wasRead = new Promise<void>((resolve) => (read = resolve));
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const slow = Object.assign(Object.create(store) as EventStore, {
      streamVersion: async (id: string) => {
        const v = await store.streamVersion(id);
        read();
        await gate;
        return v;
      },
    });
    const cache = new VersionCachedStore(slow, singleNode, { watched, maxAgeMs: 1000, now });
    const pending = cache.streamVersion(s);
    await wasRead;
    await cache.append(s, events(1), { expectedVersion: 3 });
    release();
    expect(await pending).toBe(4);
    expect(await cache.streamVersion(s)).toBe(4);
  });

  it('tells the other nodes of its own appends to watched streams, and drops everything on a reset', async () => {
    const s = 'vc/schema/tell';
    const hand = handChannel();
    const cache = cacheOver({ maxAgeMs: 60_000, channel: hand.channel });
    await cache.append(s, events(2), { expectedVersion: 'no_stream' });
    await cache.append('vc/item/tell', events(1), { expectedVersion: 'no_stream' });
    expect(hand.published).toEqual([
      [s, 1],
      [s, 2],
    ]);
    expect(await cache.streamVersion(s)).toBe(2);
    await appendBehind(s);
    expect(await cache.streamVersion(s)).toBe(2);
    hand.reset();
    expect(await cache.streamVersion(s)).toBe(3);
    // And while the channel is not live, every read goes to the store.
    hand.channel.live = false;
    await appendBehind(s);
    expect(await cache.streamVersion(s)).toBe(4);
  });
});

describe.skipIf(!url)('VersionCachedStore on two nodes over PostgreSQL LISTEN/NOTIFY', () => {
  let channel1: PgVersionChannel;
  let channel2: PgVersionChannel;
  let node1: VersionCachedStore;
  let node2: VersionCachedStore;
  /** Reads that reached node 2's store. */
  const reads2: string[] = [];
  /** Time stands still on both nodes: nothing in memory ever gets too old here. */
  const frozen = () => 0;

  beforeAll(async () => {
    channel1 = new PgVersionChannel(database.pool);
    await channel1.start();
    channel2 = new PgVersionChannel(database.pool);
    await channel2.start();
    node1 = new VersionCachedStore(new PgEventStore(database.db), channel1, { watched, maxAgeMs: 60_000, now: frozen });
    const store2 = new PgEventStore(database.db);
    const counted2 = Object.assign(Object.create(store2) as EventStore, {
      streamVersion: (id: string) => {
        reads2.push(id);
        return store2.streamVersion(id);
      },
    });
    node2 = new VersionCachedStore(counted2, channel2, { watched, maxAgeMs: 60_000, now: frozen });
  });
  afterAll(async () => {
    await channel1?.close();
    await channel2?.close();
  });

  /** Node 2's version of `s`, asked every 20 ms until it is `want` or 5 s have passed. */
  async function node2Sees(s: string, want: number): Promise<number | null> {
    const until = Date.now() + 5000;
    for (;;) {
      const v = await node2.streamVersion(s);
      if (v === want || Date.now() > until) return v;
      await new Promise((r) => setTimeout(r, 20));
    }
  }

  it('moves node 2’s version on when node 1 appends, by NOTIFY, without reading the store', async () => {
    expect([channel1.live, channel2.live]).toEqual([true, true]);
    const s = 'vc/access/two';
    await appendBehind(s);
    reads2.length = 0;
    expect(await node2.streamVersion(s)).toBe(1);
    // Cached: a writer that tells nobody is not seen.
    await appendBehind(s);
    await new Promise((r) => setTimeout(r, 100));
    expect(await node2.streamVersion(s)).toBe(1);
    expect(reads2).toEqual([s]);

    await node1.append(s, events(1), { expectedVersion: 2 });
    expect(await node1.streamVersion(s)).toBe(3);
    expect(await node2Sees(s, 3)).toBe(3);
    expect(reads2).toEqual([s]);
    // Unwatched streams are not announced; node 2 reads them from the store anyway.
    await node1.append('vc/item/two', events(1), { expectedVersion: 'no_stream' });
    expect(await node2.streamVersion('vc/item/two')).toBe(1);
  });

  it('bypasses memory while the listening connection is down, and hears again once it is back', async () => {
    const s = 'vc/schema/drop';
    await node1.append(s, events(1), { expectedVersion: 'no_stream' });
    expect(await node2Sees(s, 1)).toBe(1);
    // The server ends both nodes' listening connections (as a restart or an admin would).
    await sql`select pg_terminate_backend(pid) from pg_stat_activity
              where query like 'listen "svc_versions_%' and application_name = ${`content-service:${database.schema}`}`.execute(
      database.owner,
    );
    const until = Date.now() + 5000;
    while (channel2.live && Date.now() < until) await new Promise((r) => setTimeout(r, 10));
    expect(channel2.live).toBe(false);
    reads2.length = 0;
    await appendBehind(s);
    expect(await node2.streamVersion(s)).toBe(2);
    expect(reads2).toEqual([s]);
    // It listens again within a second or so, having dropped what it held.
    while (!(channel1.live && channel2.live) && Date.now() < until + 5000) await new Promise((r) => setTimeout(r, 20));
    expect([channel1.live, channel2.live]).toEqual([true, true]);
    expect(await node2.streamVersion(s)).toBe(2);
    reads2.length = 0;
    await node1.append(s, events(1), { expectedVersion: 2 });
    expect(await node2Sees(s, 3)).toBe(3);
    expect(reads2).toEqual([]);
  });

  it('reads the store every time once node 2’s channel is closed (not live)', async () => {
    const s = 'vc/schema/closed';
    await node1.append(s, events(1), { expectedVersion: 'no_stream' });
    expect(await node2Sees(s, 1)).toBe(1);
    await channel2.close();
    expect(channel2.live).toBe(false);
    reads2.length = 0;
    expect(await node2.streamVersion(s)).toBe(1);
    await appendBehind(s);
    expect(await node2.streamVersion(s)).toBe(2);
    await node1.append(s, events(1), { expectedVersion: 2 });
    expect(await node2.streamVersion(s)).toBe(3);
    expect(reads2).toEqual([s, s, s]);
  });
});
