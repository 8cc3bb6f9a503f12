import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestDatabase } from '../../../test/setup/db.ts';
import type { Decider } from './decider.ts';
import type { DomainEvent, EventMetadata } from './event.ts';
import type { EventStore } from './event-store.ts';
import { handleCommand } from './handle-command.ts';
import { PgEventStore } from './pg-event-store.ts';

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
const metadata: EventMetadata = {
  siteId: 'k',
  actor: { type: 'system', id: 't' },
  correlationId: 'c',
  causationId: null,
  requestId: null,
  occurredAt: new Date().toISOString(),
};

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
  it('reads only the events after the state it already folded', async () => {
    for (let i = 0; i < 5; i++) await handleCommand(spy, counter, 'k/counter/a', { type: 'Add', n: 1 }, { metadata });
    expect(reads).toEqual([1, 2, 3, 4, 5]);
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
