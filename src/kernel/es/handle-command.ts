import { DomainError } from '../http/errors.ts';
import { aggregateStream } from './aggregate-stream.ts';
import type { Decider } from './decider.ts';
import type { DomainEvent, EventMetadata, StoredEvent } from './event.ts';
import { WrongExpectedVersion, type AppendCheck, type EventStore } from './event-store.ts';
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
  /** Runs inside the append's transaction after the read models took the events (see AppendCheck). */
  check?: AppendCheck;
}

const checksOf = (opts: Pick<HandleOptions, 'check'>): AppendCheck[] | undefined =>
  opts.check ? [opts.check] : undefined;

/**
 * Loads a stream, decides, and appends with the loaded version as the expected one. A conflict is
 * re-decided against the fresh state (safe: the decider sees the other writer's events), unless the
 * caller pinned the version it saw; then the conflict goes back as 409 CONFLICT.
 *
 * Commands on one stream queue up inside this process, so concurrent writers on one node never race each other
 * into conflicts (the expected-version check still guards against other nodes). Those that queued while the
 * stream was busy go together: each is decided in turn against the state the earlier ones left, and all their
 * events are appended at once, each event under its own command's metadata. Every command gets the answer it
 * would have got alone, in that order (its own events, the version after them, or its own refusal), and a hot
 * stream costs one append per batch instead of one per writer.
 */
export function handleCommand<S, C, E extends DomainEvent>(
  store: EventStore,
  decider: Decider<S, C, E>,
  streamId: string,
  command: C,
  opts: HandleOptions,
): Promise<CommandResult<S, E>> {
  return new Promise((resolve, reject) => {
    let queues = queuesOf.get(store);
    if (!queues) queuesOf.set(store, (queues = new Map()));
    let q = queues.get(streamId);
    if (!q) queues.set(streamId, (q = { running: false, waiting: [] }));
    q.waiting.push({ decider, command, opts, resolve, reject } as unknown as Pending);
    if (!q.running) void drain(store, streamId, q, queues);
  });
}

interface Pending {
  decider: Decider<unknown, unknown, DomainEvent>;
  command: unknown;
  opts: HandleOptions;
  resolve: (r: CommandResult<unknown, DomainEvent>) => void;
  reject: (err: unknown) => void;
}

interface StreamQueue {
  running: boolean;
  waiting: Pending[];
}

/** Commands one append takes at most. */
const MAX_BATCH = 64;
const queuesOf = new WeakMap<EventStore, Map<string, StreamQueue>>();

async function drain(store: EventStore, streamId: string, q: StreamQueue, queues: Map<string, StreamQueue>) {
  q.running = true;
  try {
    while (q.waiting.length) {
      // One decider per batch (a stream has one; anything else waits for the next round).
      const first = q.waiting[0]!.decider;
      const batch: Pending[] = [];
      const rest: Pending[] = [];
      for (const p of q.waiting) (p.decider === first && batch.length < MAX_BATCH ? batch : rest).push(p);
      q.waiting = rest;
      if (batch.length === 1) {
        const [p] = batch as [Pending];
        await decideAndAppend(store, p.decider, streamId, p.command, p.opts).then(p.resolve, p.reject);
      } else {
        // Whatever fails outside the append (a read of the log) fails the batch's commands that are still waiting.
        await decideAndAppendBatch(store, first, streamId, batch).catch((err: unknown) => {
          for (const p of batch) p.reject(err);
        });
      }
    }
  } finally {
    q.running = false;
    if (queues.get(streamId) === q && !q.waiting.length) queues.delete(streamId);
  }
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
    const loaded = guess ?? (await readState(store, decider, streamId));
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
        { expectedVersion: version, checks: checksOf(opts) },
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

/** A stream's state from the log, folded from this node's state cache onwards (the cache commands use). */
export function readState<S, E extends DomainEvent>(
  store: EventStore,
  decider: Decider<S, never, E>,
  streamId: string,
) {
  return aggregateStream(
    store,
    streamId,
    (st: S, e: E) => decider.evolve(st, e),
    () => decider.initialState(),
    { cache: stateCache(store, decider as Decider<S, never, never>) },
  );
}

/** PostgreSQL's classes whose errors leave the outcome of a commit unknown (connection, shutdown, resources, system). */
const UNKNOWN_OUTCOME = /^(08|53|57|58|XX)/;

/**
 * An append error after which nothing was written: a refusal in the service's own terms, a value that could not be
 * sent, or an error PostgreSQL raised inside the transaction (it rolled back). Anything else (a connection lost,
 * an error of another store) may have followed a commit.
 */
function surelyRolledBack(err: unknown): boolean {
  if (err instanceof DomainError || err instanceof TypeError || err instanceof RangeError) return true;
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) && !UNKNOWN_OUTCOME.test(code);
}

interface Planned {
  p: Pending;
  events: DomainEvent[];
  state: unknown;
  version: number;
}

/**
 * Several commands on one stream in one append (see handleCommand). A guess from memory that any command refuses
 * or finds nothing to do is read again, as for a single command. An append that fails for another reason than a
 * conflict (a unique value taken, found by a projector) runs the commands again one by one, so that only the
 * command at fault fails.
 */
async function decideAndAppendBatch(
  store: EventStore,
  decider: Decider<unknown, unknown, DomainEvent>,
  streamId: string,
  batch: Pending[],
): Promise<void> {
  const cache = stateCache(store, decider as Decider<unknown, never, never>);
  const retries = Math.min(...batch.map((p) => p.opts.retries ?? 5));
  let known =
    cache.get(streamId) ??
    (batch.every((p) => p.opts.fresh) ? { version: 0, state: decider.initialState() } : undefined);
  for (let attempt = known ? -1 : 0; ; attempt++) {
    const guess = known;
    known = undefined;
    const loaded = guess ?? (await readState(store, decider, streamId));
    let state = loaded.state;
    let version = loaded.version;
    const planned: Planned[] = [];
    const refused: { p: Pending; err: unknown }[] = [];
    let doubt = false;
    for (const p of batch) {
      const pinned = p.opts.expectedVersion;
      let decided: DomainEvent[];
      try {
        if (pinned !== undefined && pinned !== version) throw versionConflict(streamId, pinned, version);
        decided = decider.decide(p.command, state);
      } catch (err) {
        // From memory, a refusal may be memory's fault: read, then decide the whole batch again.
        if (guess) {
          doubt = true;
          break;
        }
        refused.push({ p, err });
        continue;
      }
      if (!decided.length && guess) {
        doubt = true;
        break;
      }
      for (const e of decided) state = decider.evolve(state, e);
      version += decided.length;
      planned.push({ p, events: decided, state, version });
    }
    if (doubt) continue;
    const events = planned.flatMap((x) =>
      x.events.map((e) => ({ type: e.type, data: e.data, metadata: x.p.opts.metadata })),
    );
    try {
      const stored = events.length
        ? (
            await store.append(streamId, events, {
              expectedVersion: loaded.version,
              checks: planned.flatMap((x) => checksOf(x.p.opts) ?? []),
            })
          ).events
        : [];
      if (events.length) cache.set(streamId, version, state);
      let at = 0;
      for (const x of planned)
        x.p.resolve({ state: x.state, version: x.version, events: stored.slice(at, (at += x.events.length)) });
      for (const r of refused) r.p.reject(r.err);
      return;
    } catch (err) {
      if (!(err instanceof WrongExpectedVersion)) {
        // Only an append that surely wrote nothing is run again one by one; one whose outcome is unknown (the
        // connection lost at the commit) fails every command, as it would have failed the one command alone.
        if (!surelyRolledBack(err)) throw err;
        for (const p of batch)
          await decideAndAppend(store, p.decider, streamId, p.command, p.opts).then(p.resolve, p.reject);
        return;
      }
      // Another node wrote: everything is decided again on the fresh state (a pinned version then answers 409).
      if (!guess && attempt >= retries) {
        // Each command's own refusal stands; the others lost the race.
        for (const r of refused) r.p.reject(r.err);
        for (const x of planned)
          if (x.events.length) x.p.reject(versionConflict(streamId, loaded.version, err.actual));
          else x.p.resolve({ state: x.state, version: x.version, events: [] });
        return;
      }
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
  /**
   * The version the command was planned against (an If-Match, or a plan made from a read): the stream must still be
   * at it, and a conflict goes back as 409 CONFLICT instead of being decided again.
   */
  expectedVersion?: number;
}

/**
 * One stream's command, checked against its own decider, as a member of a batch of several deciders: the one place
 * where its types are erased (as `defineProjector` erases a projector's events).
 */
export const streamCommand = <S, C, E extends DomainEvent>(c: StreamCommand<S, C, E>): StreamCommand =>
  c as unknown as StreamCommand;

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
        const loaded = await readState(store, s.decider, streamId);
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
      if (c.expectedVersion !== undefined && s.version !== c.expectedVersion)
        throw versionConflict(c.streamId, c.expectedVersion, s.version);
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
            writes.map(([streamId, s], i) => ({
              streamId,
              events: s.decided.map((e) => ({ type: e.type, data: e.data, metadata: opts.metadata })),
              expectedVersion: s.version,
              // The set's check runs once, after every stream's events are in the read models.
              checks: i === writes.length - 1 ? checksOf(opts) : undefined,
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
      if (attempt >= retries || commands.some((c) => c.expectedVersion !== undefined))
        throw versionConflict(err.streamId, typeof err.expected === 'number' ? err.expected : 0, err.actual);
    }
  }
}

function versionConflict(streamId: string, expected: number, actual: number | null): DomainError {
  return new VersionConflict({ streamId, expected, actual: actual ?? 0 });
}
