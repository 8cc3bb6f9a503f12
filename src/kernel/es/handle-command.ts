import { DomainError } from '../http/errors.ts';
import type { Decider } from './decider.ts';
import type { DomainEvent, EventMetadata, StoredEvent } from './event.ts';
import { WrongExpectedVersion, type EventStore } from './event-store.ts';
import { stateCache } from './stream-state-cache.ts';

export interface CommandResult<S, E extends DomainEvent> {
  state: S;
  /** The stream's version after the command. */
  version: number;
  events: StoredEvent<E>[];
}

export interface HandleOptions {
  metadata: EventMetadata;
  /** The version the client saw (e.g. from If-Match): then a conflict is never retried. */
  expectedVersion?: number;
  retries?: number;
}

/**
 * Loads a stream, decides, and appends with the loaded version as the expected one. A conflict is
 * re-decided against the fresh state (safe: the decider sees the other writer's events), unless the
 * caller pinned the version it saw; then the conflict goes back as 409 CONFLICT.
 */
export function handleCommand<S, C, E extends DomainEvent>(
  store: EventStore,
  decider: Decider<S, C, E>,
  streamId: string,
  command: C,
  opts: HandleOptions,
): Promise<CommandResult<S, E>> {
  return serialised(streamId, () => decideAndAppend(store, decider, streamId, command, opts));
}

const tails = new Map<string, Promise<unknown>>();

/**
 * Commands on one stream queue up inside this process, so concurrent writers on one node never race each
 * other into conflicts; the expected-version check still guards against other nodes.
 */
function serialised<T>(key: string, fn: () => Promise<T>): Promise<T> {
  const prev = tails.get(key) ?? Promise.resolve();
  const run = prev.then(fn, fn);
  const tail = run.catch(() => undefined);
  tails.set(key, tail);
  void tail.then(() => {
    if (tails.get(key) === tail) tails.delete(key);
  });
  return run;
}

async function decideAndAppend<S, C, E extends DomainEvent>(
  store: EventStore,
  decider: Decider<S, C, E>,
  streamId: string,
  command: C,
  opts: HandleOptions,
): Promise<CommandResult<S, E>> {
  const retries = opts.expectedVersion === undefined ? (opts.retries ?? 5) : 0;
  const cache = stateCache(store, decider as Decider<S, never, never>);
  for (let attempt = 0; ; attempt++) {
    const cached = cache.get(streamId);
    let state = cached?.state ?? decider.initialState();
    let version = cached?.version ?? 0;
    for await (const e of store.readStream<E>(streamId, { fromVersion: version + 1 })) {
      state = decider.evolve(state, { type: e.type, data: e.data } as E);
      version = e.streamVersion;
    }
    if (opts.expectedVersion !== undefined && opts.expectedVersion !== version) {
      throw versionConflict(streamId, opts.expectedVersion, version);
    }
    cache.set(streamId, version, state);
    const decided = decider.decide(command, state);
    if (decided.length === 0) return { state, version, events: [] };
    try {
      const res = await store.append(
        streamId,
        decided.map((e) => ({ type: e.type, data: e.data, metadata: opts.metadata })),
        { expectedVersion: version },
      );
      for (const e of decided) state = decider.evolve(state, e);
      cache.set(streamId, res.nextExpectedVersion, state);
      return { state, version: res.nextExpectedVersion, events: res.events as StoredEvent<E>[] };
    } catch (err) {
      if (!(err instanceof WrongExpectedVersion)) throw err;
      if (attempt >= retries) throw versionConflict(streamId, version, err.actual);
    }
  }
}

function versionConflict(streamId: string, expected: number, actual: number | null): DomainError {
  return new DomainError(
    'CONFLICT',
    `the record was changed by someone else (expected version ${expected}, found ${actual ?? 0})`,
    {
      extensions: { stream: streamId, expectedVersion: expected, actualVersion: actual ?? 0 },
    },
  );
}
