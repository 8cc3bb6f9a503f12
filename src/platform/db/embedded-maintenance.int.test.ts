import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { systemMetadata } from '../../../test/support/metadata.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestDatabase } from '../../../test/setup/db.ts';
import type { NewEvent } from '../../kernel/es/event.ts';
import { PgEventStore } from '../../adapters/event-store/pg-event-store.ts';
import { embeddedMaintenance, MAINTENANCE_AFTER_EVENTS } from './embedded-maintenance.ts';

let database: Awaited<ReturnType<typeof openTestDatabase>>;
let store: PgEventStore;
beforeAll(async () => {
  database = await openTestDatabase();
  store = new PgEventStore(database.db);
});
afterAll(() => database.drop());

/** The planner's row estimate of `events` (-1 or 0 until an analyze or vacuum looked at it). */
const estimate = async () =>
  Number(
    (
      await sql<{ n: number }>`select reltuples::float8 as n from pg_class where relname = 'events'`.execute(
        database.owner,
      )
    ).rows[0]!.n,
  );

const appendMany = async (n: number) => {
  const events = Array.from(
    { length: n },
    (_, i) =>
      ({
        type: 'Counted',
        data: { i },
        metadata: systemMetadata('mx'),
      }) as NewEvent,
  );
  await store.append(`mx/counter/${randomUUID()}`, events, { expectedVersion: 'no_stream' });
};

// The loop runs on the embedded database only; on PostgreSQL autovacuum would move the estimates under the test.
describe.skipIf(Boolean(process.env.TEST_DATABASE_URL))('the embedded maintenance', () => {
  it('vacuums and analyzes at its first round, then again only once enough was appended', async () => {
    const loop = embeddedMaintenance(database.owner, store, 60_000);
    await appendMany(300);
    await loop.run();
    const first = await estimate();
    expect(first).toBeGreaterThanOrEqual(300);
    await appendMany(300);
    await loop.run(); // 300 since: not yet
    expect(await estimate()).toBe(first);
    await appendMany(MAINTENANCE_AFTER_EVENTS);
    await loop.run();
    expect(await estimate()).toBeGreaterThanOrEqual(first + 300 + MAINTENANCE_AFTER_EVENTS);
    loop.stop();
  });
});
