import type { StreamStateCache } from './aggregate-stream.ts';
import type { Decider } from './decider.ts';
import type { EventStore } from './event-store.ts';

interface Entry {
  version: number;
  state: unknown;
}

const MAX_PER_DECIDER = 10_000;
const caches = new WeakMap<EventStore, WeakMap<object, Map<string, Entry>>>();

/**
 * Folded state per stream, kept after each command so the next one reads only the events after it
 * (a long-lived stream is not replayed from the start on every write). States are immutable values;
 * entries are dropped oldest-first past a bound, and a miss just folds from the log.
 */
export function stateCache<S>(store: EventStore, decider: Decider<S, never, never>): StreamStateCache<S> {
  let byDecider = caches.get(store);
  if (!byDecider) caches.set(store, (byDecider = new WeakMap()));
  let map = byDecider.get(decider);
  if (!map) byDecider.set(decider, (map = new Map()));
  const m = map;
  return {
    get: (streamId) => m.get(streamId) as { version: number; state: S } | undefined,
    set: (streamId, version, state) => {
      m.delete(streamId);
      m.set(streamId, { version, state });
      if (m.size > MAX_PER_DECIDER) m.delete(m.keys().next().value!);
    },
  };
}
