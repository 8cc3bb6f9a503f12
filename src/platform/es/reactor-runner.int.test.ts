import { randomUUID } from 'node:crypto';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestDatabase } from '../../../test/setup/db.ts';
import { withSystem } from '../../kernel/tenancy/site.ts';
import type { DomainEvent, EventMetadata, NewEvent, StoredEvent } from '../../kernel/es/event.ts';
import { PgEventStore } from '../../adapters/event-store/pg-event-store.ts';
import { defineReactor } from '../../kernel/es/reactor.ts';
import { placeReactors, REACTOR_MAX_ATTEMPTS, startReactors, type ReactorRunner } from './reactor-runner.ts';

type Rang = DomainEvent<'Rang', { n: number }>;
type Other = DomainEvent<'Other', { n: number }>;

const log = pino({ level: 'silent' });
const meta = (): EventMetadata => ({
  siteId: 'rx',
  actor: { type: 'system', id: 'test' },
  correlationId: randomUUID(),
  causationId: null,
  requestId: null,
  occurredAt: new Date().toISOString(),
});

let database: Awaited<ReturnType<typeof openTestDatabase>>;
let store: PgEventStore;
beforeAll(async () => {
  database = await openTestDatabase();
  store = new PgEventStore(database.db);
});
afterAll(() => database.drop());

const append = (type: 'Rang' | 'Other', n: number) =>
  store.append(`rx/bell/${randomUUID()}`, [{ type, data: { n }, metadata: meta() } as NewEvent], {
    expectedVersion: 'no_stream',
  });

/** A reactor that notes the `n` of each Rang it handles; `fails(n)` makes it throw on that event instead. */
async function bell(fails: (n: number) => boolean = () => false) {
  const name = `bell-${randomUUID()}`;
  const seen: number[] = [];
  const reactor = defineReactor<Rang, null, number>({
    name,
    handles: ['Rang'],
    load: async () => null,
    react: (e) => [e.data.n],
    send: async (n) => {
      if (fails(n)) throw new Error(`bell ${n} is cracked`);
      seen.push(n);
    },
  });
  await placeReactors(database.db, store, [reactor]);
  const runner: ReactorRunner = startReactors({
    db: database.db,
    events: store,
    locks: database.locks,
    reactors: [reactor],
    log,
    poll: false,
  });
  return { name, seen, runner };
}

const state = (name: string) =>
  withSystem(database.db, (trx) =>
    trx.selectFrom('reactor_state').selectAll().where('name', '=', name).executeTakeFirstOrThrow(),
  );
/** Lets the next drain try again now instead of after the backoff. */
const retryNow = (name: string) =>
  withSystem(database.db, (trx) =>
    trx.updateTable('reactor_state').set({ retry_at: null }).where('name', '=', name).execute(),
  );

describe('a reactor', () => {
  it('starts at the head of the log: what happened before its first start is not reacted to', async () => {
    await append('Rang', 1);
    const b = await bell();
    await append('Rang', 2);
    await append('Other', 3);
    await b.runner.drain();
    expect(b.seen).toEqual([2]);
    await b.runner.stop();
  });

  it('handles each event once, whatever the drains that overlap or follow', async () => {
    const b = await bell();
    for (const n of [10, 11, 12]) await append('Rang', n);
    await Promise.all([b.runner.drain(), b.runner.drain(), b.runner.drain()]);
    await b.runner.drain();
    expect(b.seen).toEqual([10, 11, 12]);
    await b.runner.stop();
  });

  it('keeps its place before a failing event and tries it again after the backoff', async () => {
    let cracked = true;
    const b = await bell((n) => n === 21 && cracked);
    for (const n of [20, 21, 22]) await append('Rang', n);
    await b.runner.drain();
    expect(b.seen).toEqual([20]);
    const failed = await state(b.name);
    expect(failed).toMatchObject({ failures: 1, last_error: 'Error: bell 21 is cracked' });
    expect(failed.retry_at!.getTime()).toBeGreaterThan(Date.now());
    await b.runner.drain(); // still inside the backoff: nothing happens
    expect(b.seen).toEqual([20]);
    cracked = false;
    await retryNow(b.name);
    await b.runner.drain();
    expect(b.seen).toEqual([20, 21, 22]);
    expect(await state(b.name)).toMatchObject({ failures: 0, last_error: null, retry_at: null });
    await b.runner.stop();
  });

  it(`parks an event that fails ${REACTOR_MAX_ATTEMPTS} times and goes on with the next`, async () => {
    const b = await bell((n) => n === 31);
    await append('Rang', 30);
    const [cracked] = (await append('Rang', 31)).events;
    await append('Rang', 32);
    for (let i = 0; i < REACTOR_MAX_ATTEMPTS; i++) {
      await retryNow(b.name);
      await b.runner.drain();
    }
    expect(b.seen).toEqual([30, 32]);
    const parked = await withSystem(database.db, (trx) =>
      trx.selectFrom('reactor_parked').selectAll().where('reactor', '=', b.name).execute(),
    );
    expect(parked).toHaveLength(1);
    expect(parked[0]).toMatchObject({ type: 'Rang', site_id: 'rx', error: 'Error: bell 31 is cracked' });
    expect(parked[0]!.event_id).toBe(cracked!.eventId);
    await b.runner.stop();
  });

  it('is told each stored event with its metadata', async () => {
    const got: StoredEvent[] = [];
    const name = `meta-${randomUUID()}`;
    const reactor = defineReactor<Rang | Other, null, StoredEvent>({
      name,
      handles: ['Rang', 'Other'],
      load: async () => null,
      react: (e) => [e],
      send: async (e) => void got.push(e),
    });
    await placeReactors(database.db, store, [reactor]);
    const runner = startReactors({
      db: database.db,
      events: store,
      locks: null,
      reactors: [reactor],
      log,
      poll: false,
    });
    await append('Other', 40);
    await runner.drain(name);
    expect(got.map((e) => [e.type, e.siteId, e.metadata.actor.id])).toEqual([['Other', 'rx', 'test']]);
    await runner.stop();
  });
});
