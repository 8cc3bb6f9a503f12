import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestDatabase } from '../../../test/setup/db.ts';
import { aggregateStream, type StreamStateCache } from './aggregate-stream.ts';
import type { DomainEvent, EventMetadata, NewEvent } from './event.ts';
import { PgEventStore } from '../../adapters/event-store/pg-event-store.ts';

type Added = DomainEvent<'Added', { n: number }>;

const meta = (): EventMetadata => ({
  siteId: 'agg',
  actor: { type: 'system', id: 'test' },
  correlationId: randomUUID(),
  causationId: null,
  requestId: null,
  occurredAt: new Date().toISOString(),
});
const added = (n: number): NewEvent => ({ type: 'Added', data: { n }, metadata: meta() });
const sum = (s: number, e: Added) => s + e.data.n;

function mapCache<S>(): StreamStateCache<S> & { entries: Map<string, { version: number; state: S }> } {
  const entries = new Map<string, { version: number; state: S }>();
  return { entries, get: (id) => entries.get(id), set: (id, version, state) => entries.set(id, { version, state }) };
}

describe('aggregateStream', () => {
  let database: Awaited<ReturnType<typeof openTestDatabase>>;
  let store: PgEventStore;
  beforeAll(async () => {
    database = await openTestDatabase();
    store = new PgEventStore(database.db);
  });
  afterAll(() => database.drop());

  it('folds a missing stream to the initial state at version 0', async () => {
    expect(await aggregateStream(store, `agg/sum/${randomUUID()}`, sum, () => 0)).toEqual({ state: 0, version: 0 });
  });

  it('folds every event of a stream and names its version', async () => {
    const stream = `agg/sum/${randomUUID()}`;
    await store.append(stream, [added(1), added(2), added(3)], { expectedVersion: 'no_stream' });
    expect(await aggregateStream(store, stream, sum, () => 0)).toEqual({ state: 6, version: 3 });
  });

  it('hands the stored event to the fold besides the domain event', async () => {
    const stream = `agg/sum/${randomUUID()}`;
    await store.append(stream, [added(5)], { expectedVersion: 'no_stream' });
    const seen = await aggregateStream<string[], Added>(
      store,
      stream,
      (s, e, stored) => [...s, `${e.type}@${stored.streamVersion} by ${stored.metadata.actor.id}`],
      () => [],
    );
    expect(seen.state).toEqual(['Added@1 by test']);
  });

  it('caches the fold by version and reads only the events after it next time', async () => {
    const stream = `agg/sum/${randomUUID()}`;
    const cache = mapCache<number>();
    await store.append(stream, [added(1), added(2)], { expectedVersion: 'no_stream' });
    expect(await aggregateStream(store, stream, sum, () => 0, { cache })).toEqual({ state: 3, version: 2 });
    expect(cache.entries.get(stream)).toEqual({ version: 2, state: 3 });
    // A state no fold of this stream could give: only a fold that starts from the cached entry ends at 1003.
    cache.set(stream, 2, 1000);
    await store.append(stream, [added(3)], { expectedVersion: 2 });
    expect(await aggregateStream(store, stream, sum, () => 0, { cache })).toEqual({ state: 1003, version: 3 });
    expect(cache.entries.get(stream)).toEqual({ version: 3, state: 1003 });
  });
});
