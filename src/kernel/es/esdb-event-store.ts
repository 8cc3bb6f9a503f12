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
import type { DomainEvent, EventMetadata, NewEvent, StoredEvent } from './event.ts';
import {
  AppendListeners,
  siteOfStream,
  WrongExpectedVersion,
  type AppendListener,
  type AppendRequest,
  type AppendResult,
  type EventStore,
  type ExpectedVersion,
  type ReadAllOptions,
  type ReadStreamOptions,
} from './event-store.ts';

const PAGE = 500;

/**
 * Event store on EventStoreDB / KurrentDB. Our versions are 1-based (a stream with one event has version 1);
 * EventStoreDB revisions are 0-based, so version = revision + 1. Checkpoints are `<commit>:<prepare>`.
 */
export class EsdbEventStore implements EventStore {
  readonly kind = 'eventstoredb';
  private readonly client: EventStoreDBClient;

  constructor(connectionString: string) {
    this.client = EventStoreDBClient.connectionString(connectionString);
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

  async append(
    streamId: string,
    events: NewEvent[],
    opts: { expectedVersion: ExpectedVersion },
  ): Promise<AppendResult> {
    if (events.length === 0) throw new Error('append needs at least one event');
    const started = performance.now();
    siteOfStream(streamId);
    const data = events.map((e) => ({
      id: e.eventId ?? randomUUID(),
      contentType: 'application/json' as const,
      type: e.type,
      data: (e.data ?? {}) as JSONType,
      metadata: { ...e.metadata, schemaVersion: e.schemaVersion ?? 1 } as unknown as JSONType,
    }));
    try {
      const res = await this.client.appendToStream(streamId, data, {
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
      const reading = this.client.readStream(streamId, {
        fromRevision: BigInt(from - 1),
        ...(maxCount ? { maxCount } : {}),
      });
      for await (const resolved of reading) {
        const e = resolved.event as JSONRecordedEvent | undefined;
        if (!e) continue;
        const stored = toStored<E>(e);
        if (opts.until && stored.createdAt > opts.until) return;
        yield stored;
      }
    } catch (err) {
      if (err instanceof StreamNotFoundError) return;
      throw err;
    }
  }

  async readAll(opts: ReadAllOptions = {}): Promise<StoredEvent[]> {
    const limit = opts.limit ?? PAGE;
    const after = opts.after ? parsePosition(opts.after) : null;
    const out: StoredEvent[] = [];
    const reading = this.client.readAll({ fromPosition: after ?? START, maxCount: limit + 1 });
    for await (const resolved of reading) {
      const e = resolved.event as (JSONRecordedEvent & { position: { commit: bigint; prepare: bigint } }) | undefined;
      if (!e || e.type.startsWith('$') || e.streamId.startsWith('$')) continue;
      if (after && e.position.commit === after.commit && e.position.prepare === after.prepare) continue;
      out.push(toStored(e));
      if (out.length >= limit) break;
    }
    return out;
  }

  async streamVersion(streamId: string): Promise<number | null> {
    try {
      for await (const resolved of this.client.readStream(streamId, {
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
  const m = /^(\d+):(\d+)$/.exec(cp);
  if (!m) throw new Error(`invalid checkpoint ${cp}`);
  return { commit: BigInt(m[1]!), prepare: BigInt(m[2]!) };
}

function toStored<E extends DomainEvent>(e: JSONRecordedEvent): StoredEvent<E> {
  const { schemaVersion, ...metadata } = (e.metadata ?? {}) as unknown as EventMetadata & { schemaVersion?: number };
  const position = e.position ?? { commit: 0n, prepare: 0n };
  return {
    type: e.type as E['type'],
    data: e.data as E['data'],
    eventId: e.id,
    schemaVersion: schemaVersion ?? 1,
    metadata,
    streamId: e.streamId,
    siteId: siteOfStream(e.streamId),
    streamVersion: Number(e.revision) + 1,
    globalPosition: position.commit,
    checkpoint: `${position.commit}:${position.prepare}`,
    createdAt: new Date(metadata.occurredAt ?? e.created),
  };
}
