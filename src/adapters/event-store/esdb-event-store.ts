import { randomUUID } from 'node:crypto';
import {
  ANY,
  BACKWARDS,
  END,
  EventStoreDBClient,
  NO_STREAM,
  START,
  StreamNotFoundError,
  WrongExpectedVersionError,
  type AppendExpectedRevision,
  type JSONRecordedEvent,
  type JSONType,
} from '@eventstore/db-client';
import type { DomainEvent, EventMetadata, NewEvent, StoredEvent } from '../../kernel/es/event.ts';
import {
  AppendListeners,
  comparePairPositions,
  parsePair,
  siteOfStream,
  WrongExpectedVersion,
  type AppendListener,
  type AppendOptions,
  type AppendRequest,
  type AppendResult,
  type EventStore,
  type ExpectedVersion,
  type GlobalPosition,
  type LogScan,
  type ReadAllOptions,
  type ScanOptions,
  scanByReading,
  type ReadStreamOptions,
} from '../../kernel/es/event-store.ts';
import { upcasters as serviceUpcasters, type Upcasters } from '../../kernel/es/upcast.ts';

const PAGE = 500;

/**
 * Event store on EventStoreDB / KurrentDB. Our versions are 1-based (a stream with one event has version 1);
 * EventStoreDB revisions are 0-based, so version = revision + 1. Checkpoints are `<commit>:<prepare>`.
 */
export class EsdbEventStore implements EventStore {
  readonly kind = 'eventstoredb';
  private readonly client: EventStoreDBClient;
  private readonly upcasters: Upcasters;
  private readonly prefix: string;

  /**
   * `prefix` is put before every stream name in EventStoreDB and only its streams are read back, so several
   * instances (or test files) can share one server without seeing each other's events.
   */
  constructor(connectionString: string, opts: { upcasters?: Upcasters; prefix?: string } = {}) {
    this.client = EventStoreDBClient.connectionString(connectionString);
    this.upcasters = opts.upcasters ?? serviceUpcasters;
    this.prefix = opts.prefix ?? '';
  }

  /** Whether a recorded event of $all is one of this store's (not EventStoreDB's own, not another prefix's). */
  private ours(e: { type: string; streamId: string }): boolean {
    return !e.type.startsWith('$') && !e.streamId.startsWith('$') && e.streamId.startsWith(this.prefix);
  }

  private stored<E extends DomainEvent>(e: JSONRecordedEvent): StoredEvent<E> {
    return this.upcasters.upcast(toStored<E>(e, e.streamId.slice(this.prefix.length)));
  }

  /** EventStoreDB has no multi-stream transaction: the streams are appended one after another (not atomic). */
  async appendMany(batch: AppendRequest[]): Promise<AppendResult[]> {
    const results: AppendResult[] = [];
    for (const b of batch)
      results.push(await this.append(b.streamId, b.events, { expectedVersion: b.expectedVersion }));
    return results;
  }

  private readonly listeners = new AppendListeners();

  onAppended(listener: AppendListener): () => void {
    return this.listeners.add(listener);
  }

  /** `opts.checks` do not run: EventStoreDB has no transaction beside the read models (see AppendCheck). */
  async append(streamId: string, events: NewEvent[], opts: AppendOptions): Promise<AppendResult> {
    if (events.length === 0) throw new Error('append needs at least one event');
    const started = performance.now();
    siteOfStream(streamId);
    const data = events.map((e) => ({
      id: e.eventId ?? randomUUID(),
      contentType: 'application/json' as const,
      type: e.type,
      data: (e.data ?? {}) as JSONType,
      metadata: {
        ...e.metadata,
        schemaVersion: e.schemaVersion ?? this.upcasters.currentVersion(e.type),
      } as unknown as JSONType,
    }));
    try {
      const res = await this.client.appendToStream(this.prefix + streamId, data, {
        expectedRevision: toRevision(opts.expectedVersion),
      });
      const last = Number(res.nextExpectedRevision) + 1;
      const first = last - events.length + 1;
      const stored = await this.readRange(streamId, first, last);
      const result = { nextExpectedVersion: last, events: stored };
      this.listeners.notify([result], (performance.now() - started) / 1000);
      return result;
    } catch (err) {
      if (err instanceof WrongExpectedVersionError) {
        const actual = typeof err.actualVersion === 'bigint' ? Number(err.actualVersion) + 1 : null;
        throw new WrongExpectedVersion(streamId, opts.expectedVersion, actual);
      }
      throw err;
    }
  }

  private async readRange(streamId: string, from: number, to: number): Promise<StoredEvent[]> {
    const out: StoredEvent[] = [];
    for await (const e of this.readStream(streamId, { fromVersion: from, toVersion: to })) out.push(e);
    return out;
  }

  async *readStream<E extends DomainEvent = DomainEvent>(
    streamId: string,
    opts: ReadStreamOptions = {},
  ): AsyncIterable<StoredEvent<E>> {
    const from = Math.max(1, opts.fromVersion ?? 1);
    const maxCount = opts.toVersion !== undefined ? Math.max(0, opts.toVersion - from + 1) : undefined;
    if (maxCount === 0) return;
    try {
      const reading = this.client.readStream(this.prefix + streamId, {
        fromRevision: BigInt(from - 1),
        ...(maxCount ? { maxCount } : {}),
      });
      for await (const resolved of reading) {
        const e = resolved.event as JSONRecordedEvent | undefined;
        if (!e) continue;
        const stored = this.stored<E>(e);
        if (opts.until && stored.createdAt > opts.until) return;
        yield stored;
      }
    } catch (err) {
      if (err instanceof StreamNotFoundError) return;
      throw err;
    }
  }

  /** EventStoreDB filters $all by type on the server only by prefix or regex: the events are read and filtered here. */
  scanAll(opts: ScanOptions): Promise<LogScan> {
    return scanByReading(this, opts);
  }

  /**
   * $all holds EventStoreDB's own ($) events too, and a read cannot filter them out on the server: it reads on in
   * windows past them until it has `limit` of ours or reaches the end, so a run of them never stalls a reader.
   */
  async readAll(opts: ReadAllOptions = {}): Promise<StoredEvent[]> {
    const limit = opts.limit ?? PAGE;
    let from = opts.after ? parsePosition(opts.after) : null;
    const out: StoredEvent[] = [];
    for (;;) {
      let seen = 0;
      let last: { commit: bigint; prepare: bigint } | null = null;
      for await (const resolved of this.client.readAll({ fromPosition: from ?? START, maxCount: limit + 1 })) {
        seen++;
        const e = resolved.event as
          (JSONRecordedEvent & { position?: { commit: bigint; prepare: bigint } }) | undefined;
        if (!e?.position) continue;
        last = e.position;
        // A read from a position starts at the event there, which the caller already has.
        if (from && e.position.commit === from.commit && e.position.prepare === from.prepare) continue;
        if (!this.ours(e)) continue;
        out.push(this.stored(e));
        if (out.length >= limit) return out;
      }
      if (seen < limit + 1 || !last) return out;
      from = last;
    }
  }

  async headPosition(): Promise<GlobalPosition | null> {
    // Backwards from the end, past EventStoreDB's own ($) events, to the last one of ours.
    for await (const resolved of this.client.readAll({ fromPosition: END, direction: BACKWARDS, maxCount: 4096 })) {
      const e = resolved.event as (JSONRecordedEvent & { position?: { commit: bigint; prepare: bigint } }) | undefined;
      if (!e?.position || !this.ours(e)) continue;
      return `${e.position.commit}:${e.position.prepare}`;
    }
    return null;
  }

  /** EventStoreDB keeps no count of $all: the events after the position are read through and counted. */
  async countAfter(after: GlobalPosition | null): Promise<number> {
    let n = 0;
    for (let cp = after ?? undefined; ;) {
      const page = await this.readAll({ after: cp, limit: PAGE });
      n += page.length;
      if (page.length < PAGE) return n;
      cp = page[page.length - 1]!.checkpoint;
    }
  }

  comparePositions(a: GlobalPosition | null, b: GlobalPosition | null): number {
    return comparePairPositions(a, b);
  }

  async streamVersion(streamId: string): Promise<number | null> {
    try {
      for await (const resolved of this.client.readStream(this.prefix + streamId, {
        fromRevision: END,
        direction: BACKWARDS,
        maxCount: 1,
      })) {
        if (resolved.event) return Number(resolved.event.revision) + 1;
      }
      return null;
    } catch (err) {
      if (err instanceof StreamNotFoundError) return null;
      throw err;
    }
  }

  async close(): Promise<void> {
    await this.client.dispose();
  }
}

function toRevision(v: ExpectedVersion): AppendExpectedRevision {
  if (v === 'any') return ANY;
  if (v === 'no_stream' || v === 0) return NO_STREAM;
  return BigInt(v - 1);
}

function parsePosition(cp: string): { commit: bigint; prepare: bigint } {
  const [commit, prepare] = parsePair(cp);
  return { commit, prepare };
}

function toStored<E extends DomainEvent>(e: JSONRecordedEvent, streamId: string): StoredEvent<E> {
  const { schemaVersion, ...metadata } = (e.metadata ?? {}) as unknown as EventMetadata & { schemaVersion?: number };
  const position = e.position ?? { commit: 0n, prepare: 0n };
  return {
    type: e.type as E['type'],
    data: e.data as E['data'],
    eventId: e.id,
    schemaVersion: schemaVersion ?? 1,
    metadata,
    streamId,
    siteId: siteOfStream(streamId),
    streamVersion: Number(e.revision) + 1,
    globalPosition: position.commit,
    checkpoint: `${position.commit}:${position.prepare}`,
    createdAt: new Date(metadata.occurredAt ?? e.created),
  };
}
