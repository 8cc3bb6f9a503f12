import { DomainError } from '../http/errors.ts';
import { aggregateStream } from './aggregate-stream.ts';
import type { Decider } from './decider.ts';
import type { DomainEvent, EventMetadata, StoredEvent } from './event.ts';
import { WrongExpectedVersion, type EventStore } from './event-store.ts';
import { stateCache } from './stream-state-cache.ts';
import { VersionConflict } from '../http/kernel.errors.ts';

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
  /** The stream id was made for this command (a generated id): the stream is empty, nothing to read. */
  fresh?: boolean;
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
  // First, the state this node already knows (its last write, or an empty stream for a new id) without reading the
  // log: the append's expected version proves it current. Any doubt (a conflict, a refusal, nothing to do) is
  // settled by reading the log and deciding again, so a stale memory never decides on its own.
  let known = cache.get(streamId) ?? (opts.fresh ? { version: 0, state: decider.initialState() } : undefined);
  // The guess, when there is one, is attempt -1: the reads and their retries count from 0.
  for (let attempt = known ? -1 : 0; ; attempt++) {
    const guess =
      known && (opts.expectedVersion === undefined || opts.expectedVersion === known.version) ? known : undefined;
    known = undefined;
    const loaded = guess
      ? guess
      : await aggregateStream(
          store,
          streamId,
          (st: S, e: E) => decider.evolve(st, e),
          () => decider.initialState(),
          { cache },
        );
    let state = loaded.state;
    const version = loaded.version;
    if (opts.expectedVersion !== undefined && opts.expectedVersion !== version) {
      throw versionConflict(streamId, opts.expectedVersion, version);
    }
    let decided: E[];
    try {
      decided = decider.decide(command, state);
    } catch (err) {
      if (guess) continue;
      throw err;
    }
    if (decided.length === 0) {
      if (guess) continue;
      return { state, version, events: [] };
    }
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
      // A guess that missed is read again without counting as a retry; a pinned version is a conflict.
      if (opts.expectedVersion !== undefined || (!guess && attempt >= retries))
        throw versionConflict(streamId, version, err.actual);
    }
  }
}

/** One command for one stream, as part of a multi-stream command. */
export interface StreamCommand<S = unknown, C = unknown, E extends DomainEvent = DomainEvent> {
  decider: Decider<S, C, E>;
  streamId: string;
  /**
   * The command, or a function that makes it from the stream's current state: it runs again on every attempt, so
   * a change computed from the state is never computed from a stale one. null: nothing to do on this stream.
   */
  command: C | ((state: S) => C | null);
  /** The stream id was made for this command: the stream is empty, its first attempt reads nothing. */
  fresh?: boolean;
}

interface Loaded {
  decider: Decider<unknown, unknown, DomainEvent>;
  state: unknown;
  version: number;
  decided: DomainEvent[];
  stored: StoredEvent[];
}

/**
 * Each stream the commands name, folded once (from the state cache onwards). With `trustFresh`, a stream made for
 * its command is taken as empty without a read (its append's expected version 0 proves it).
 */
async function loadStreams(
  store: EventStore,
  commands: StreamCommand[],
  trustFresh: boolean,
): Promise<Map<string, Loaded>> {
  const streams = new Map<string, Loaded>();
  const toRead = new Set<string>();
  for (const { decider, streamId, fresh } of commands) {
    if (!streams.has(streamId)) {
      streams.set(streamId, { decider, state: decider.initialState(), version: 0, decided: [], stored: [] });
      if (!(fresh && trustFresh)) toRead.add(streamId);
    } else if (!fresh) toRead.add(streamId);
  }
  await Promise.all(
    [...streams]
      .filter(([streamId]) => toRead.has(streamId))
      .map(async ([streamId, s]) => {
        const cache = stateCache(store, s.decider as Decider<unknown, never, never>);
        const { decider } = s;
        const loaded = await aggregateStream(
          store,
          streamId,
          (st: unknown, e: DomainEvent) => decider.evolve(st, e),
          () => decider.initialState(),
          { cache },
        );
        s.state = loaded.state;
        s.version = loaded.version;
      }),
  );
  return streams;
}

/**
 * Decides the commands and appends all their events in one atomic append (all or nothing where the store has
 * multi-stream transactions). Commands on the same stream are decided in order, each against the state the
 * earlier ones left, and appended together. A conflict on any stream re-decides the whole set against fresh
 * state; a domain error of any command fails the whole set before anything is written. Each command's result is
 * its stream's state, version and events after the whole set.
 */
export async function handleCommands(
  store: EventStore,
  commands: StreamCommand<unknown, unknown, DomainEvent>[],
  opts: Omit<HandleOptions, 'expectedVersion'>,
): Promise<CommandResult<unknown, DomainEvent>[]> {
  const retries = opts.retries ?? 5;
  for (let attempt = 0; ; attempt++) {
    const streams = await loadStreams(store, commands, attempt === 0);
    for (const c of commands) {
      const s = streams.get(c.streamId)!;
      const command = typeof c.command === 'function' ? (c.command as (state: unknown) => unknown)(s.state) : c.command;
      if (command === null) continue;
      for (const e of c.decider.decide(command, s.state)) {
        s.decided.push(e);
        s.state = c.decider.evolve(s.state, e);
      }
    }
    const writes = [...streams].filter(([, s]) => s.decided.length > 0);
    try {
      const results = writes.length
        ? await store.appendMany(
            writes.map(([streamId, s]) => ({
              streamId,
              events: s.decided.map((e) => ({ type: e.type, data: e.data, metadata: opts.metadata })),
              expectedVersion: s.version,
            })),
          )
        : [];
      writes.forEach(([streamId, s], i) => {
        s.version = results[i]!.nextExpectedVersion;
        s.stored = results[i]!.events;
        stateCache(store, s.decider as Decider<unknown, never, never>).set(streamId, s.version, s.state);
      });
      return commands.map((c) => {
        const s = streams.get(c.streamId)!;
        return { state: s.state, version: s.version, events: s.stored };
      });
    } catch (err) {
      if (!(err instanceof WrongExpectedVersion)) throw err;
      if (attempt >= retries)
        throw versionConflict(err.streamId, typeof err.expected === 'number' ? err.expected : 0, err.actual);
    }
  }
}

function versionConflict(streamId: string, expected: number, actual: number | null): DomainError {
  return new VersionConflict({ streamId, expected, actual: actual ?? 0 });
}
