import type { DomainEvent, NewEvent, StoredEvent } from './event.ts';

/** `no_stream`: the stream must not exist; a number: its current version (0 = empty); `any`: no check. */
export type ExpectedVersion = number | 'no_stream' | 'any';

export interface AppendResult {
  /** The stream's version after the append (its last event's version). */
  nextExpectedVersion: number;
  events: StoredEvent[];
}

/** One stream's part of an atomic multi-stream append. */
export interface AppendRequest {
  streamId: string;
  events: NewEvent[];
  expectedVersion: ExpectedVersion;
}

export interface ReadStreamOptions {
  fromVersion?: number;
  toVersion?: number;
  /** Only events committed at or before this time. */
  until?: Date;
}

export interface ReadAllOptions {
  /** An event's `checkpoint`: read strictly after it. */
  after?: string;
  limit?: number;
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
export interface EventStore {
  readonly kind: string;
  append(streamId: string, events: NewEvent[], opts: { expectedVersion: ExpectedVersion }): Promise<AppendResult>;
  /**
   * Appends to several streams, each version-checked, all or nothing where the adapter has multi-stream
   * transactions (PostgreSQL, PGlite); EventStoreDB appends them one after another (not atomic there).
   */
  appendMany(batch: AppendRequest[]): Promise<AppendResult[]>;
  readStream<E extends DomainEvent = DomainEvent>(
    streamId: string,
    opts?: ReadStreamOptions,
  ): AsyncIterable<StoredEvent<E>>;
  /** Events in global order; never skips an event that a slower concurrent append commits later. */
  readAll(opts?: ReadAllOptions): Promise<StoredEvent[]>;
  /** The stream's current version, or null when it does not exist. */
  streamVersion(streamId: string): Promise<number | null>;
  /**
   * Calls `listener` with each append's events once they are committed, in this process only (caches that
   * must drop an entry the moment this node changes it). Returns the unsubscribe function.
   */
  onAppended(listener: AppendListener): () => void;
  close(): Promise<void>;
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

export async function collect<T>(it: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const x of it) out.push(x);
  return out;
}
