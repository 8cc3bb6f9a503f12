import type { Transaction } from 'kysely';
import type { DB } from '../db/database.ts';
import type { DomainEvent, NewEvent, StoredEvent } from './event.ts';

/** `no_stream`: the stream must not exist; a number: its current version (0 = empty); `any`: no check. */
export type ExpectedVersion = number | 'no_stream' | 'any';

export interface AppendResult {
  /** The stream's version after the append (its last event's version). */
  nextExpectedVersion: number;
  events: StoredEvent[];
}

/**
 * A check that runs inside the append's transaction, after the inline projectors have written the stream's events:
 * throwing refuses the append (nothing of it is written). A check that reads a read model sees it as of this append,
 * and the rows it locks stay locked until the commit, so a rule between several records (a relation's target is
 * there) holds against a concurrent write. PostgreSQL and PGlite run it; EventStoreDB has no transaction beside its
 * read models and does not (the check made before the append is all there is there).
 */
export type AppendCheck = (trx: Transaction<DB>) => Promise<void>;

/** One stream's part of an atomic multi-stream append. */
export interface AppendRequest {
  streamId: string;
  events: NewEvent[];
  expectedVersion: ExpectedVersion;
  checks?: readonly AppendCheck[];
}

/** What an append of one stream is given besides its events. */
export interface AppendOptions {
  expectedVersion: ExpectedVersion;
  checks?: readonly AppendCheck[];
}

export interface ReadStreamOptions {
  fromVersion?: number;
  toVersion?: number;
  /** Only events committed at or before this time. */
  until?: Date;
}

/**
 * A place in the global order, opaque outside the adapter that made it: PostgreSQL's
 * `<transaction id>:<global position>`, EventStoreDB's `<commit>:<prepare>`. Every stored event carries its own
 * as `checkpoint`; only the adapter orders two of them (`comparePositions`).
 */
export type GlobalPosition = string;

export interface ReadAllOptions {
  /** An event's `checkpoint`: read strictly after it. */
  after?: GlobalPosition;
  limit?: number;
}

/** What `scanAll` answers: the events of the types asked, and how far the log was looked at. */
export interface LogScan {
  events: StoredEvent[];
  /** The position of the last event looked at (of any type), or null when there was none to look at. */
  through: GlobalPosition | null;
  /** How many events were looked at. */
  scanned: number;
}

/** Scans the next `limit` events after a checkpoint and reads in full only those of `types`. */
export const scanByReading = async (log: Pick<GlobalLog, 'readAll'>, opts: ScanOptions): Promise<LogScan> => {
  const all = await log.readAll({ ...(opts.after ? { after: opts.after } : {}), limit: opts.limit });
  const types = opts.types === '*' ? null : new Set(opts.types);
  return {
    events: all.filter((e) => types === null || types.has(e.type)),
    through: all.at(-1)?.checkpoint ?? null,
    scanned: all.length,
  };
};

export interface ScanOptions {
  after?: GlobalPosition;
  limit: number;
  /** The types read in full; `'*'`: every event. */
  types: readonly string[] | '*';
}

/**
 * The log in global order, the only way projections and process workers read it: pages after a checkpoint,
 * the head, the distance to it, and the order of two positions. Catch-up, rebuilds and the async worker depend on
 * this, never on one adapter's tables.
 */
export interface GlobalLog {
  /** Events in global order; never skips an event that a slower concurrent append commits later. */
  readAll(opts?: ReadAllOptions): Promise<StoredEvent[]>;
  /**
   * The next `limit` events after `after` in the same order and with the same guarantee, of which only those of
   * `types` are read in full and answered: what a reader that handles a few types (a reactor) needs, without the
   * data of every other event. `through` is where it may take its checkpoint.
   */
  scanAll(opts: ScanOptions): Promise<LogScan>;
  /**
   * The position of the last event committed so far; null on an empty log. A reader may not see it yet (a slower
   * append still open before it holds it back), but once a checkpoint reaches it, every event committed before
   * the call has been read.
   */
  headPosition(): Promise<GlobalPosition | null>;
  /** How many events lie after `after` (all of them for null). */
  countAfter(after: GlobalPosition | null): Promise<number>;
  /** Negative, zero or positive as `a` comes before, at or after `b`; null is before every event. */
  comparePositions(a: GlobalPosition | null, b: GlobalPosition | null): number;
  /**
   * Only where the log and the read models share one database (PostgreSQL, PGlite): inside `trx`, holds every
   * append back until `trx` ends and returns a reader of what is left of the log. A rebuild swaps its tables in
   * under it, so that nothing is appended between its last read and the swap.
   */
  holdAppends?(
    trx: Transaction<DB>,
  ): Promise<(after: GlobalPosition | undefined, limit: number) => Promise<StoredEvent[]>>;
}

/** Raised when the expected version does not match; maps to 409 CONFLICT. */
export class WrongExpectedVersion extends Error {
  constructor(
    readonly streamId: string,
    readonly expected: ExpectedVersion,
    readonly actual: number | null,
  ) {
    super(`stream ${streamId} expected version ${String(expected)}, actual ${actual ?? 'none'}`);
    this.name = 'WrongExpectedVersion';
  }
}

/** The append-only event store port (DESIGN §3); every adapter passes test/contracts/event-store.contract.ts. */
export interface EventStore extends GlobalLog {
  readonly kind: string;
  append(streamId: string, events: NewEvent[], opts: AppendOptions): Promise<AppendResult>;
  /**
   * Appends to several streams, each version-checked, all or nothing where the adapter has multi-stream
   * transactions (PostgreSQL, PGlite); EventStoreDB appends them one after another (not atomic there).
   */
  appendMany(batch: AppendRequest[]): Promise<AppendResult[]>;
  readStream<E extends DomainEvent = DomainEvent>(
    streamId: string,
    opts?: ReadStreamOptions,
  ): AsyncIterable<StoredEvent<E>>;
  /** The stream's current version, or null when it does not exist. */
  streamVersion(streamId: string): Promise<number | null>;
  /**
   * Calls `listener` with each append's events once they are committed, in this process only (caches that
   * must drop an entry the moment this node changes it). Returns the unsubscribe function.
   */
  onAppended(listener: AppendListener): () => void;
  close(): Promise<void>;
}

/**
 * A store over another that forwards every call: decorators (the projection wait, the version memory) extend it and
 * override only what they change.
 */
export abstract class ForwardingStore implements EventStore {
  readonly kind: string;
  readonly holdAppends?: EventStore['holdAppends'];
  constructor(protected readonly inner: EventStore) {
    this.kind = inner.kind;
    if (inner.holdAppends) this.holdAppends = (trx: Transaction<DB>) => inner.holdAppends!(trx);
  }
  append(streamId: string, events: NewEvent[], opts: AppendOptions): Promise<AppendResult> {
    return this.inner.append(streamId, events, opts);
  }
  appendMany(batch: AppendRequest[]): Promise<AppendResult[]> {
    return this.inner.appendMany(batch);
  }
  readStream<E extends DomainEvent = DomainEvent>(
    streamId: string,
    opts?: ReadStreamOptions,
  ): AsyncIterable<StoredEvent<E>> {
    return this.inner.readStream<E>(streamId, opts);
  }
  readAll(opts?: ReadAllOptions): Promise<StoredEvent[]> {
    return this.inner.readAll(opts);
  }
  scanAll(opts: ScanOptions): Promise<LogScan> {
    return this.inner.scanAll(opts);
  }
  headPosition(): Promise<GlobalPosition | null> {
    return this.inner.headPosition();
  }
  countAfter(after: GlobalPosition | null): Promise<number> {
    return this.inner.countAfter(after);
  }
  comparePositions(a: GlobalPosition | null, b: GlobalPosition | null): number {
    return this.inner.comparePositions(a, b);
  }
  streamVersion(streamId: string): Promise<number | null> {
    return this.inner.streamVersion(streamId);
  }
  onAppended(listener: AppendListener): () => void {
    return this.inner.onAppended(listener);
  }
  close(): Promise<void> {
    return this.inner.close();
  }
}

/** `seconds`: how long the append took, commit included. */
export type AppendListener = (events: readonly StoredEvent[], info: { seconds: number }) => void;

/** The listeners of one store; a listener that throws never fails the append that already committed. */
export class AppendListeners {
  private readonly listeners = new Set<AppendListener>();
  add(listener: AppendListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
  notify(results: readonly AppendResult[], seconds: number): void {
    if (this.listeners.size === 0) return;
    const events = results.flatMap((r) => r.events);
    for (const l of this.listeners) {
      try {
        l(events, { seconds });
      } catch {
        // A cache listener's failure must not turn a committed write into an error.
      }
    }
  }
}

/** Site id of a stream name `<siteId>/<aggregate>/<id…>`. */
export function siteOfStream(streamId: string): string {
  const i = streamId.indexOf('/');
  if (i <= 0) throw new Error(`stream id ${streamId} has no site part`);
  return streamId.slice(0, i);
}

/** Orders two `<bigint>:<bigint>` positions as pairs (the form both adapters use); null comes first. */
export function comparePairPositions(a: GlobalPosition | null, b: GlobalPosition | null): number {
  if (a === b) return 0;
  if (a === null) return -1;
  if (b === null) return 1;
  const [a1, a2] = parsePair(a);
  const [b1, b2] = parsePair(b);
  if (a1 !== b1) return a1 < b1 ? -1 : 1;
  return a2 === b2 ? 0 : a2 < b2 ? -1 : 1;
}

export function parsePair(position: GlobalPosition): [bigint, bigint] {
  const m = /^(\d+):(\d+)$/.exec(position);
  if (!m) throw new Error(`invalid position ${position}`);
  return [BigInt(m[1]!), BigInt(m[2]!)];
}

export async function collect<T>(it: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const x of it) out.push(x);
  return out;
}
