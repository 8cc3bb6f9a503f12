import { systemMetadata } from '../../../test/support/metadata.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestDatabase } from '../../../test/setup/db.ts';
import type { Decider } from './decider.ts';
import type { DomainEvent } from './event.ts';
import type { EventStore } from './event-store.ts';
import { handleCommand, handleCommands } from './handle-command.ts';
import { PgEventStore } from '../../adapters/event-store/pg-event-store.ts';

type Added = DomainEvent<'Added', { n: number }>;
type Add = { type: 'Add'; n: number; max?: number };
/** A counter that refuses to pass `max`: enough to see what state each decision was made on. */
const counter: Decider<number, Add, Added> = {
  initialState: () => 0,
  evolve: (s, e) => s + e.data.n,
  decide: (c, s) => {
    if (c.max !== undefined && s + c.n > c.max) throw new Error(`would pass ${c.max}`);
    return [{ type: 'Added', data: { n: c.n } }];
  },
};
const metadata = systemMetadata('k');

let db: Awaited<ReturnType<typeof openTestDatabase>>;
let store: PgEventStore;
const reads: number[] = [];
let spy: EventStore;
beforeAll(async () => {
  db = await openTestDatabase();
  store = new PgEventStore(db.db);
  spy = Object.assign(Object.create(store) as EventStore, {
    readStream: (id: string, o?: { fromVersion?: number }) => {
      reads.push(o?.fromVersion ?? 1);
      return store.readStream(id, o);
    },
  });
});
afterAll(() => db.drop());

describe('handleCommand', () => {
  it('reads a stream once, then decides on the state of its own last write (the append proves it current)', async () => {
    for (let i = 0; i < 5; i++) await handleCommand(spy, counter, 'k/counter/a', { type: 'Add', n: 1 }, { metadata });
    expect(reads).toEqual([1]);
  });

  it('reads nothing for a stream made for the command', async () => {
    reads.length = 0;
    const res = await handleCommand(spy, counter, 'k/counter/new', { type: 'Add', n: 4 }, { metadata, fresh: true });
    expect(res).toMatchObject({ state: 4, version: 1 });
    expect(reads).toEqual([]);
  });

  it('reads again before refusing on what it remembers: a writer behind its back may have made room', async () => {
    await handleCommand(spy, counter, 'k/counter/r', { type: 'Add', n: 5 }, { metadata });
    await store.append(
      'k/counter/r',
      [{ type: 'Added', data: { n: -5 } }].map((e) => ({ ...e, metadata })),
      {
        expectedVersion: 1,
      },
    );
    reads.length = 0;
    const res = await handleCommand(spy, counter, 'k/counter/r', { type: 'Add', n: 8, max: 10 }, { metadata });
    expect(res).toMatchObject({ state: 8, version: 3 });
    expect(reads).toEqual([2]);
  });

  it('a stream taken for new but written already is read and decided again, not overwritten', async () => {
    await store.append('k/counter/taken', [{ type: 'Added', data: { n: 7 }, metadata }], {
      expectedVersion: 'no_stream',
    });
    const res = await handleCommand(
      store,
      counter,
      'k/counter/taken',
      { type: 'Add', n: 1 },
      { metadata, fresh: true },
    );
    expect(res).toMatchObject({ state: 8, version: 2 });
  });

  it('sees events another writer appended behind its back', async () => {
    await store.append('k/counter/a', [{ type: 'Added', data: { n: 100 }, metadata }], { expectedVersion: 5 });
    const res = await handleCommand(spy, counter, 'k/counter/a', { type: 'Add', n: 1 }, { metadata });
    expect(res.state).toBe(106);
    expect(res.version).toBe(7);
  });

  it('serialises concurrent commands on one stream so none is lost', async () => {
    const results = await Promise.all(
      Array.from({ length: 20 }, () =>
        handleCommand(store, counter, 'k/counter/b', { type: 'Add', n: 2 }, { metadata }),
      ),
    );
    expect(results.map((r) => r.version).sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
    expect(results.find((r) => r.version === 20)!.state).toBe(40);
  });

  it('answers a pinned stale version with CONFLICT and appends nothing', async () => {
    await expect(
      handleCommand(store, counter, 'k/counter/b', { type: 'Add', n: 1 }, { metadata, expectedVersion: 3 }),
    ).rejects.toMatchObject({ code: 'CONFLICT' });
    expect(await store.streamVersion('k/counter/b')).toBe(20);
  });
});

async function all<T>(events: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const e of events) out.push(e);
  return out;
}

describe('handleCommand: commands that queue on one stream go in one append', () => {
  /** The store, counting appends and failing any append that carries a poisoned value. */
  const appends: number[] = [];
  /** A failure PostgreSQL raised inside the transaction (it rolled back), by default; `lost` one of unknown outcome. */
  const counting = (poison?: number, lost = false) =>
    Object.assign(Object.create(store) as EventStore, {
      append: (id: string, events: { data: unknown }[], o: never) => {
        appends.push(events.length);
        if (poison !== undefined && events.some((e) => (e.data as { n: number }).n === poison))
          return Promise.reject(
            lost
              ? new Error('Connection terminated unexpectedly')
              : Object.assign(new Error('poisoned'), { code: '23505' }),
          );
        return store.append(id, events as never, o);
      },
    });
  const add = (s: EventStore, id: string, n: number, extra: Partial<Parameters<typeof handleCommand>[4]> = {}) =>
    handleCommand(
      s,
      counter,
      id,
      { type: 'Add', n, max: extra.retries === 99 ? undefined : 30 },
      { metadata: { ...metadata, correlationId: `c${n}` }, ...extra },
    );

  it('gives each command its own events, version and state, in order, each event under its own metadata', async () => {
    appends.length = 0;
    const s = counting();
    const results = await Promise.all([1, 2, 3, 4, 5, 6].map((n) => add(s, 'k/batch/a', n)));
    expect(results.map((r) => [r.version, r.state])).toEqual([
      [1, 1],
      [2, 3],
      [3, 6],
      [4, 10],
      [5, 15],
      [6, 21],
    ]);
    expect(results.map((r) => r.events.map((e) => [e.streamVersion, e.data, e.metadata.correlationId]))).toEqual(
      [1, 2, 3, 4, 5, 6].map((n, i) => [[i + 1, { n }, `c${n}`]]),
    );
    // The first ran alone; the five that queued meanwhile went in one append.
    expect(appends).toEqual([1, 5]);
    const log = await all(store.readStream('k/batch/a'));
    expect(log.map((e) => [e.data, e.metadata.correlationId])).toEqual([1, 2, 3, 4, 5, 6].map((n) => [{ n }, `c${n}`]));
  });

  it('refuses a command alone, as it would have been refused in turn, and appends the others', async () => {
    const s = counting();
    // max 30: 21 + 4 = 25 passes, + 9 would be 34 (refused), + 5 = 30 passes.
    const settled = await Promise.allSettled([4, 9, 5].map((n) => add(s, 'k/batch/a', n)));
    expect(settled.map((r) => (r.status === 'fulfilled' ? r.value.state : (r.reason as Error).message))).toEqual([
      25,
      'would pass 30',
      30,
    ]);
    expect(await store.streamVersion('k/batch/a')).toBe(8);
  });

  it('answers a pinned version against the version its place in the batch sees', async () => {
    appends.length = 0;
    const s = counting();
    const v = (await store.streamVersion('k/batch/a')) as number;
    const settled = await Promise.allSettled([
      add(s, 'k/batch/a', 1, { retries: 99 }),
      add(s, 'k/batch/a', 1, { expectedVersion: v + 1, retries: 99 }),
      add(s, 'k/batch/a', 1, { expectedVersion: v + 1, retries: 99 }),
      add(s, 'k/batch/a', 1, { retries: 99 }),
    ]);
    expect(
      settled.map((r) => (r.status === 'fulfilled' ? r.value.version : (r.reason as { code: string }).code)),
    ).toEqual([v + 1, v + 2, 'CONFLICT', v + 3]);
  });

  it('runs a batch again one by one when its append fails for another reason, so only the command at fault fails', async () => {
    appends.length = 0;
    const s = counting(13);
    const settled = await Promise.allSettled([1, 2, 13, 3].map((n) => add(s, 'k/batch/p', n, { retries: 99 })));
    expect(settled.map((r) => (r.status === 'fulfilled' ? r.value.state : (r.reason as Error).message))).toEqual([
      1,
      3,
      'poisoned',
      6,
    ]);
    // 1 alone; 2, 13, 3 together (failed); then 2, 13, 3 one by one.
    expect(appends).toEqual([1, 3, 1, 1, 1]);
    expect((await all(store.readStream('k/batch/p'))).map((e) => e.data)).toEqual([{ n: 1 }, { n: 2 }, { n: 3 }]);
  });

  it('fails every command of a batch whose append may have committed, running none of them again', async () => {
    const s = counting(7, true);
    await add(s, 'k/batch/lost', 1, { retries: 99 });
    appends.length = 0;
    const settled = await Promise.allSettled([1, 7, 2].map((n) => add(s, 'k/batch/lost', n, { retries: 99 })));
    // They queued behind the first write and went in one append, which was lost: none is tried again.
    expect(appends).toEqual([3]);
    expect(settled.map((r) => r.status === 'rejected' && (r.reason as Error).message)).toEqual(
      Array(3).fill('Connection terminated unexpectedly'),
    );
  });

  it('fails the waiting commands, and no more, when the log cannot be read', async () => {
    let broken = true;
    const s = Object.assign(Object.create(store) as EventStore, {
      readStream: (id: string, o?: object) => {
        if (broken) throw Object.assign(new Error('read failed'), { code: '57014' });
        return store.readStream(id, o);
      },
    });
    const settled = await Promise.allSettled([1, 2, 3, 4].map((n) => add(s, 'k/batch/unread', n, { retries: 99 })));
    expect(settled.map((r) => r.status === 'rejected' && (r.reason as Error).message)).toEqual(
      Array(4).fill('read failed'),
    );
    broken = false;
    expect((await add(s, 'k/batch/unread', 5, { retries: 99 })).state).toBe(5);
  });

  it('decides a batch again on the fresh state when another writer got in between', async () => {
    const s = counting();
    await add(s, 'k/batch/c', 1, { retries: 99 });
    // Behind this process's back: the memory of version 1 is stale.
    await store.append('k/batch/c', [{ type: 'Added', data: { n: 10 }, metadata }], { expectedVersion: 1 });
    const results = await Promise.all([2, 3, 4].map((n) => add(s, 'k/batch/c', n, { retries: 99 })));
    expect(results.map((r) => [r.version, r.state])).toEqual([
      [3, 13],
      [4, 16],
      [5, 20],
    ]);
  });
});

describe('handleCommands', () => {
  const cmd = (streamId: string, n: number, max?: number) => ({
    decider: counter as Decider<unknown, unknown, DomainEvent>,
    streamId,
    command: { type: 'Add', n, max },
  });

  it('appends to every stream, or to none when one command is refused', async () => {
    await handleCommands(store, [cmd('k/counter/m1', 1), cmd('k/counter/m2', 2)], { metadata });
    await expect(
      handleCommands(store, [cmd('k/counter/m1', 1), cmd('k/counter/m2', 5, 3)], { metadata }),
    ).rejects.toThrow('would pass 3');
    expect([await store.streamVersion('k/counter/m1'), await store.streamVersion('k/counter/m2')]).toEqual([1, 1]);
  });

  it('re-decides the whole set when another writer got in between', async () => {
    const spyOnce = Object.assign(Object.create(store) as EventStore, {
      appendMany: async (batch: Parameters<EventStore['appendMany']>[0]) => {
        if (!interfered) {
          interfered = true;
          await store.append('k/counter/m2', [{ type: 'Added', data: { n: 10 }, metadata }], { expectedVersion: 1 });
        }
        return store.appendMany(batch);
      },
    });
    let interfered = false;
    const res = await handleCommands(spyOnce, [cmd('k/counter/m1', 1), cmd('k/counter/m2', 1)], { metadata });
    expect(res.map((r) => [r.version, r.state])).toEqual([
      [2, 2],
      [3, 13],
    ]);
  });

  it('decides commands on one stream in order, each against the state the earlier ones left', async () => {
    const res = await handleCommands(store, [cmd('k/counter/m3', 1), cmd('k/counter/m3', 2)], { metadata });
    expect(res.map((r) => [r.version, r.state])).toEqual([
      [2, 3],
      [2, 3],
    ]);
    await expect(
      handleCommands(store, [cmd('k/counter/m3', 1), cmd('k/counter/m3', 1, 4)], { metadata }),
    ).rejects.toThrow('would pass 4');
    expect(await store.streamVersion('k/counter/m3')).toBe(2);
  });

  it('makes a command from the fresh state again on each attempt, and skips a stream that needs none', async () => {
    let interfered = false;
    const spyOnce = Object.assign(Object.create(store) as EventStore, {
      appendMany: async (batch: Parameters<EventStore['appendMany']>[0]) => {
        if (!interfered) {
          interfered = true;
          await store.append('k/counter/m4', [{ type: 'Added', data: { n: 10 }, metadata }], {
            expectedVersion: 'any',
          });
        }
        return store.appendMany(batch);
      },
    });
    const seen: number[] = [];
    /** Tops the counter up to 20: the amount depends on what is there when the command is made. */
    const topUp = (streamId: string) => ({
      ...cmd(streamId, 0),
      command: (s: unknown) => (
        seen.push(s as number),
        (s as number) >= 20 ? null : { type: 'Add', n: 20 - (s as number) }
      ),
    });
    const res = await handleCommands(spyOnce, [topUp('k/counter/m4'), topUp('k/counter/m5')], { metadata });
    expect(seen).toEqual([0, 0, 10, 0]);
    expect(res.map((r) => r.state)).toEqual([20, 20]);
    const again = await handleCommands(store, [topUp('k/counter/m4')], { metadata });
    expect(again[0]!.events).toEqual([]);
    expect(await store.streamVersion('k/counter/m4')).toBe(2);
  });

  it('answers CONFLICT after its retries and writes none of the streams', async () => {
    const alwaysInterfering = Object.assign(Object.create(store) as EventStore, {
      appendMany: async (batch: Parameters<EventStore['appendMany']>[0]) => {
        await store.append('k/counter/m7', [{ type: 'Added', data: { n: 1 }, metadata }], { expectedVersion: 'any' });
        return store.appendMany(batch);
      },
    });
    await expect(
      handleCommands(alwaysInterfering, [cmd('k/counter/m6', 1), cmd('k/counter/m7', 1)], { metadata, retries: 2 }),
    ).rejects.toMatchObject({ code: 'CONFLICT' });
    expect(await store.streamVersion('k/counter/m6')).toBeNull();
    expect(await store.streamVersion('k/counter/m7')).toBe(3);
  });
});
