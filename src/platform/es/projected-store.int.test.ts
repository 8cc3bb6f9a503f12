import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventStoreContract } from '../../../test/contracts/event-store.contract.ts';
import { openTestDatabase } from '../../../test/setup/db.ts';
import type { NewEvent } from '../../kernel/es/event.ts';
import type { Upcasters } from '../../kernel/es/upcast.ts';
import { PgEventStore } from '../../adapters/event-store/pg-event-store.ts';
import { ProjectedStore } from './projected-store.ts';
import { ProjectionEngine } from './projection-engine.ts';
import { ProjectionSubscription } from './projection-subscription.ts';
import type { Projector } from '../../kernel/es/projector.ts';

/** Records every event it is given: a write is projected when its id is here. */
const probe: Projector = {
  name: 'subscription-probe',
  version: 1,
  mode: 'inline',
  tables: ['subscription_probe'],
  handles: '*',
  createTables: async (db, t) => {
    await sql`create table ${sql.table(t('subscription_probe'))} (site_id text not null, event_id uuid primary key)`.execute(
      db,
    );
  },
  apply: async (trx, e, t) => {
    await sql`insert into ${sql.table(t('subscription_probe'))} (site_id, event_id) values (${e.siteId}, ${e.eventId})`.execute(
      trx,
    );
  },
};

/** The SQL store without inline projectors, behind a subscription that projects the probe: the EventStoreDB shape. */
async function openSubscribed(upcasters?: Upcasters) {
  const database = await openTestDatabase();
  const inner = new PgEventStore(database.db, [], { upcasters });
  const engine = new ProjectionEngine(database.owner, [probe], {
    events: inner,
    servingRole: database.servingRole,
    inlineInAppends: false,
  });
  await engine.setup();
  const log = pino({ level: 'silent' });
  const subscription = new ProjectionSubscription({
    db: database.db,
    events: inner,
    projectors: [probe],
    log,
    pollMs: 50,
  });
  subscription.start();
  const store = new ProjectedStore(inner, subscription, 5000, log);
  const close = async () => {
    await subscription.stop();
    await database.drop();
  };
  return { database, store, close };
}

eventStoreContract(`${process.env.TEST_DATABASE_URL ? 'PostgreSQL' : 'PGlite'} behind a subscription`, async (o) =>
  openSubscribed(o.upcasters),
);

const counted = (n: number): NewEvent => ({
  type: 'Counted',
  data: { n },
  metadata: {
    siteId: 'sub',
    actor: { type: 'system', id: 't' },
    correlationId: randomUUID(),
    causationId: null,
    requestId: null,
    occurredAt: new Date().toISOString(),
  },
});

describe('a store behind a projection subscription', () => {
  let s: Awaited<ReturnType<typeof openSubscribed>>;
  beforeAll(async () => {
    s = await openSubscribed();
  });
  afterAll(() => s.close());

  const projected = async (ids: string[]) =>
    (
      await sql<{
        n: string;
      }>`select count(*)::text as n from subscription_probe where event_id = any(${ids}::uuid[])`.execute(
        s.database.owner,
      )
    ).rows[0]!.n;

  it('answers an append once its events are projected', async () => {
    for (let i = 0; i < 5; i++) {
      const res = await s.store.append(`sub/thing/${randomUUID()}`, [counted(1), counted(2)], {
        expectedVersion: 'no_stream',
      });
      expect(await projected(res.events.map((e) => e.eventId))).toBe('2');
    }
  });

  it('tells append listeners of a write only once it is projected', async () => {
    const seen: string[] = [];
    const off = s.store.onAppended((events) => {
      void projected(events.map((e) => e.eventId)).then((n) => seen.push(n));
    });
    try {
      await s.store.append(`sub/thing/${randomUUID()}`, [counted(1)], { expectedVersion: 'no_stream' });
      await new Promise((r) => setTimeout(r, 50));
      expect(seen).toEqual(['1']);
    } finally {
      off();
    }
  });
});
