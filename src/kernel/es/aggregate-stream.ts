import type { DomainEvent, StoredEvent } from './event.ts';
import type { EventStore } from './event-store.ts';

/** Folded states by stream, each with the stream version it was folded at (see `stateCache`). */
export interface StreamStateCache<S> {
  get(streamId: string): { version: number; state: S } | undefined;
  set(streamId: string, version: number, state: S): void;
}

/**
 * Reads a stream (from the cached fold onwards when a cache is given), folds it and caches the result by the
 * stream's version. Events reach `evolve` upcast and as `{ type, data }`, the shape a decider emits; the stored
 * event (metadata, version) comes third for the rare fold that needs it. States must be immutable values: a
 * cached one is handed out again.
 */
export async function aggregateStream<S, E extends DomainEvent>(
  store: Pick<EventStore, 'readStream'>,
  streamId: string,
  evolve: (state: S, event: E, stored: StoredEvent<E>) => S,
  initial: () => S,
  opts: { cache?: StreamStateCache<S> } = {},
): Promise<{ state: S; version: number }> {
  const cached = opts.cache?.get(streamId);
  let state = cached ? cached.state : initial();
  let version = cached?.version ?? 0;
  for await (const e of store.readStream<E>(streamId, { fromVersion: version + 1 })) {
    state = evolve(state, { type: e.type, data: e.data } as E, e);
    version = e.streamVersion;
  }
  // Set even when unchanged: the entry becomes the most recently used.
  opts.cache?.set(streamId, version, state);
  return { state, version };
}
