import { randomUUID } from 'node:crypto';
import pino from 'pino';
import { systemMetadata } from '../../test/support/metadata.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestDatabase } from '../../test/setup/db.ts';
import type { NewEvent } from '../kernel/es/event.ts';
import { PgEventStore } from '../adapters/event-store/pg-event-store.ts';
import { startLeaderLoop } from './leader-loop.ts';

const log = pino({ level: 'silent' });
let database: Awaited<ReturnType<typeof openTestDatabase>>;
let store: PgEventStore;
beforeAll(async () => {
  database = await openTestDatabase();
  store = new PgEventStore(database.db);
});
afterAll(() => database.drop());

const append = (type: string) =>
  store.append(
    `lp/thing/${randomUUID()}`,
    [
      {
        type,
        data: {},
        metadata: systemMetadata('lp'),
      } as NewEvent,
    ],
    { expectedVersion: 'no_stream' },
  );
const until = async (check: () => boolean, ms = 3000) => {
  for (const end = Date.now() + ms; !check() && Date.now() < end;) await new Promise((r) => setTimeout(r, 10));
};

describe('a leader loop', () => {
  it('sleeps while no work is due, wakes on an append of its types only, and keeps rounds apart', async () => {
    let rounds = 0;
    const loop = startLeaderLoop({
      name: `wake-${randomUUID()}`,
      locks: database.locks,
      log,
      intervalMs: 50,
      idleMs: 60_000,
      wakeOn: ['WorkArrived'],
      appends: store,
      run: async () => {
        rounds++;
        return null;
      },
    });
    await until(() => rounds === 1);
    await new Promise((r) => setTimeout(r, 300));
    // Nothing due: one round, then sleep (the idle round comes after a minute).
    expect(rounds).toBe(1);
    await append('SomethingElse');
    await new Promise((r) => setTimeout(r, 200));
    expect(rounds).toBe(1);
    await append('WorkArrived');
    await until(() => rounds === 2);
    expect(rounds).toBe(2);
    // A burst of appends wakes it once or twice, not once per append: rounds come `intervalMs` apart at least.
    for (let i = 0; i < 10; i++) await append('WorkArrived');
    await new Promise((r) => setTimeout(r, 300));
    expect(rounds).toBeGreaterThanOrEqual(3);
    expect(rounds).toBeLessThanOrEqual(5);
    await loop.stop();
  });

  it('comes back when its last round said the next work is due', async () => {
    const times: number[] = [];
    const loop = startLeaderLoop({
      name: `due-${randomUUID()}`,
      locks: database.locks,
      log,
      intervalMs: 20,
      idleMs: 60_000,
      run: async () => {
        times.push(Date.now());
        return times.length === 1 ? new Date(Date.now() + 250) : null;
      },
    });
    await until(() => times.length === 2);
    expect(times).toHaveLength(2);
    expect(times[1]! - times[0]!).toBeGreaterThanOrEqual(240);
    await new Promise((r) => setTimeout(r, 200));
    expect(times).toHaveLength(2);
    await loop.stop();
  });
});
