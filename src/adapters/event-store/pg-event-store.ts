import { randomUUID } from 'node:crypto';
import { sql, type Kysely, type Selectable, type Transaction } from 'kysely';
import type { DB, EventsTable } from '../../kernel/db/database.ts';
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
  type ReadStreamOptions,
} from '../../kernel/es/event-store.ts';
import { GroupCommitter } from './group-commit.ts';
import { asSystem, scopeTo, withSystem } from '../../kernel/tenancy/site.ts';
import {
  handlesEvent,
  liveTable,
  noInstanceKey,
  type ProjectionContext,
  type Projector,
} from '../../kernel/es/projector.ts';
import { upcasters as serviceUpcasters, type Upcasters } from '../../kernel/es/upcast.ts';

const PAGE = 500;

export type EventRow = Selectable<EventsTable>;

export function toStoredEvent<E extends DomainEvent = DomainEvent>(r: EventRow): StoredEvent<E> {
  return {
    type: r.type as E['type'],
    data: r.data as E['data'],
    eventId: r.event_id,
    schemaVersion: r.schema_version,
    metadata: r.metadata as EventMetadata,
    streamId: r.stream_id,
    siteId: r.site_id,
    streamVersion: r.stream_version,
    globalPosition: BigInt(r.global_position),
    checkpoint: `${r.transaction_id}:${r.global_position}`,
    createdAt: new Date(r.created_at),
  };
}

export function parseCheckpoint(cp: string | null | undefined): [string, string] {
  if (!cp) return ['0', '0'];
  const [tx, pos] = parsePair(cp);
  return [String(tx), String(pos)];
}

/**
 * Event store on PostgreSQL or PGlite: one `events` table, a `streams` table for the version check,
 * and inline projectors applied in the append transaction (read-your-writes). Without inline projectors (the
 * subscription mode) the read models follow the log through the global reader instead.
 */
export class PgEventStore implements EventStore {
  readonly kind = 'postgres';
  private readonly upcasters: Upcasters;
  constructor(
    private readonly db: Kysely<DB>,
    private readonly inline: readonly Projector[] = [],
    opts: { upcasters?: Upcasters; context?: ProjectionContext } = {},
  ) {
    this.committer = new GroupCommitter(db);
    this.upcasters = opts.upcasters ?? serviceUpcasters;
    this.context = opts.context ?? noInstanceKey;
  }

  /** What the inline projectors' `apply` gets (the instance keyring). */
  private readonly context: ProjectionContext;

  private readonly committer: GroupCommitter;
  private readonly listeners = new AppendListeners();

  onAppended(listener: AppendListener): () => void {
    return this.listeners.add(listener);
  }

  append(streamId: string, events: NewEvent[], opts: AppendOptions): Promise<AppendResult> {
    return this.appendMany([{ streamId, events, expectedVersion: opts.expectedVersion, checks: opts.checks }]).then(
      (r) => r[0]!,
    );
  }

  /** Several streams in one transaction: all appended, or none. Concurrent calls share a commit (group commit). */
  async appendMany(batch: AppendRequest[]): Promise<AppendResult[]> {
    if (batch.length === 0 || batch.some((b) => b.events.length === 0))
      throw new Error('append needs at least one event per stream');
    const started = performance.now();
    try {
      const committed = await this.committer.run(async (trx) => {
        const results: AppendResult[] = [];
        // Many new streams of one site (a bulk create, a preview's seed): their rows in one statement.
        const fresh = freshStreamsOfOneSite(batch);
        if (fresh) {
          await scopeTo(trx, fresh);
          const stamped = batch.map((b) =>
            b.events.map((e) => ({ ...e, schemaVersion: e.schemaVersion ?? this.upcasters.currentVersion(e.type) })),
          );
          const inserted = await appendNewStreams(
            trx,
            fresh,
            batch.map((b, i) => ({ streamId: b.streamId, events: stamped[i]! })),
          );
          for (const rows of inserted) {
            const stored = rows.map((e) => this.upcasters.upcast(e));
            for (const p of this.inline) await applyInline(trx, p, stored, this.context);
            results.push({ nextExpectedVersion: stored.at(-1)!.streamVersion, events: stored });
          }
          for (const b of batch) for (const check of b.checks ?? []) await check(trx);
          return results;
        }
        for (const { streamId, events, expectedVersion, checks } of batch) {
          const siteId = siteOfStream(streamId);
          // Each stream's rows, and what the inline projectors write for it, are its site's alone.
          await scopeTo(trx, siteId);
          const stamped = events.map((e) => ({
            ...e,
            schemaVersion: e.schemaVersion ?? this.upcasters.currentVersion(e.type),
          }));
          const inserted = await appendRows(trx, siteId, streamId, stamped, expectedVersion);
          const last = inserted.at(-1)!.streamVersion;
          const stored = inserted.map((e) => this.upcasters.upcast(e));
          for (const p of this.inline) await applyInline(trx, p, stored, this.context);
          for (const check of checks ?? []) await check(trx);
          results.push({ nextExpectedVersion: last, events: stored });
        }
        return results;
      });
      this.listeners.notify(committed, (performance.now() - started) / 1000);
      return committed;
    } catch (err) {
      // The primary key (site, stream, version) is the backstop for any race the version check misses; a deadlock
      // between two nodes' groups is a race too. Either way the caller may re-decide and retry.
      if (isVersionRace(err)) {
        const [first] = batch as [AppendRequest];
        throw new WrongExpectedVersion(first.streamId, first.expectedVersion, await this.streamVersion(first.streamId));
      }
      throw err;
    }
  }

  async *readStream<E extends DomainEvent = DomainEvent>(
    streamId: string,
    opts: ReadStreamOptions = {},
  ): AsyncIterable<StoredEvent<E>> {
    const siteId = siteOfStream(streamId);
    let from = opts.fromVersion ?? 1;
    const to = opts.toVersion ?? null;
    const until = opts.until ?? null;
    for (;;) {
      // One statement under the stream's site (svc_read_stream sets it), not a transaction of four round trips.
      const { rows } = await sql<EventRow>`
        select * from svc_read_stream(${siteId}, ${streamId}, ${from}, ${to}, ${until}, ${PAGE})`.execute(this.db);
      for (const r of rows) yield this.upcasters.upcast(toStoredEvent<E>(r));
      if (rows.length < PAGE) return;
      from = rows[rows.length - 1]!.stream_version + 1;
    }
  }

  /**
   * One statement (svc_scan_log): the positions and types of the next `limit` events (the same snapshot guard as
   * `readAll`), the rows in full of the wanted ones only, so the data of the others never leaves the database.
   */
  async scanAll(opts: ScanOptions): Promise<LogScan> {
    const [tx, pos] = parseCheckpoint(opts.after);
    // Stored under an older type an upcaster renames: read too, and kept if it reads as a wanted type today.
    const stored = opts.types === '*' ? null : this.upcasters.storedTypesOf(opts.types);
    const types = opts.types === '*' ? null : new Set(opts.types);
    const { rows } = await sql<EventRow>`
      select * from svc_scan_log(${tx}::xid8, ${pos}::bigint, ${opts.limit}::int, ${stored}::text[])`.execute(this.db);
    const last = rows.at(-1);
    return {
      events: rows
        .filter((r) => r.data !== null)
        .map((r) => this.upcasters.upcast(toStoredEvent(r)))
        .filter((e) => types === null || types.has(e.type)),
      through: last ? `${last.transaction_id}:${last.global_position}` : null,
      scanned: rows.length,
    };
  }

  async readAll(opts: ReadAllOptions = {}): Promise<StoredEvent[]> {
    const page = await withSystem(this.db, (trx) => readGlobal(trx, opts.after, opts.limit ?? PAGE, true));
    return page.map((e) => this.upcasters.upcast(e));
  }

  async headPosition(): Promise<GlobalPosition | null> {
    const head = await withSystem(this.db, (trx) =>
      sql<{ cp: string }>`
        select transaction_id || ':' || global_position as cp from events
        order by transaction_id desc, global_position desc limit 1`.execute(trx),
    );
    return head.rows[0]?.cp ?? null;
  }

  async countAfter(after: GlobalPosition | null): Promise<number> {
    const [tx, pos] = parseCheckpoint(after);
    const r = await withSystem(this.db, (trx) =>
      sql<{ n: string }>`
        select count(*)::text as n from events
        where (transaction_id, global_position) > (${tx}::xid8, ${pos}::bigint)`.execute(trx),
    );
    return Number(r.rows[0]!.n);
  }

  comparePositions(a: GlobalPosition | null, b: GlobalPosition | null): number {
    return comparePairPositions(a, b);
  }

  async holdAppends(
    trx: Transaction<DB>,
  ): Promise<(after: GlobalPosition | undefined, limit: number) => Promise<StoredEvent[]>> {
    // Appends wait for this lock; everything committed before it is read without the snapshot guard.
    await sql`lock table events in exclusive mode`.execute(trx);
    return async (after, limit) => (await readGlobal(trx, after, limit, false)).map((e) => this.upcasters.upcast(e));
  }

  /**
   * One statement under the stream's site (`svc_stream_version`): every request checks the schema's and the access
   * model's versions, so this read is on the path of every call.
   */
  async streamVersion(streamId: string): Promise<number | null> {
    const r = await sql<{
      v: number | null;
    }>`select svc_stream_version(${siteOfStream(streamId)}, ${streamId}) as v`.execute(this.db);
    return r.rows[0]?.v ?? null;
  }

  async close(): Promise<void> {}
}

async function applyInline(
  trx: Transaction<DB>,
  p: Projector,
  stored: StoredEvent[],
  ctx: ProjectionContext,
): Promise<void> {
  const mine = stored.filter((e) => handlesEvent(p, e.type));
  if (mine.length === 0) return;
  const run = async () => {
    for (const e of mine) await p.apply(trx, e, liveTable, ctx);
  };
  await (p.instanceWide ? asSystem(trx, run) : run());
}

/**
 * Global order by (transaction_id, global_position). With `guard`, only transactions older than every
 * running one are read, so an event that a slower transaction commits later is never skipped.
 * Without it (only under an exclusive lock on `events`) everything committed is read.
 */
export async function readGlobal(
  db: Kysely<DB> | Transaction<DB>,
  after: string | undefined,
  limit: number,
  guard: boolean,
): Promise<StoredEvent[]> {
  const [tx, pos] = parseCheckpoint(after);
  const rows = await sql<EventRow>`
    select * from events
    where (transaction_id, global_position) > (${tx}::xid8, ${pos}::bigint)
    ${guard ? sql`and transaction_id < pg_snapshot_xmin(pg_current_snapshot())` : sql``}
    order by transaction_id, global_position
    limit ${limit}`.execute(db);
  return rows.rows.map((r) => toStoredEvent(r));
}

/**
 * Moves the stream's version on by the events' count (checking the expected version) and inserts the events at the
 * versions it makes, in one statement; no rows back means the expected version did not hold.
 */
async function appendRows(
  trx: Transaction<DB>,
  siteId: string,
  streamId: string,
  events: NewEvent[],
  expected: ExpectedVersion,
): Promise<StoredEvent[]> {
  const n = events.length;
  const bump =
    expected === 'any'
      ? sql`insert into streams (site_id, stream_id, version) values (${siteId}, ${streamId}, ${n})
            on conflict (site_id, stream_id) do update set version = streams.version + ${n} returning version`
      : expected === 'no_stream' || expected === 0
        ? sql`insert into streams (site_id, stream_id, version) values (${siteId}, ${streamId}, ${n})
              on conflict (site_id, stream_id) do nothing returning version`
        : sql`update streams set version = version + ${n}
              where site_id = ${siteId} and stream_id = ${streamId} and version = ${expected} returning version`;
  const ids = events.map((e) => e.eventId ?? randomUUID());
  const res = await sql<EventRow>`
    with s as (${bump})
    insert into events (site_id, stream_id, stream_version, event_id, type, schema_version, data, metadata, created_at)
    select ${siteId}, ${streamId}, s.version - ${n}::int + u.ord::int, u.id, u.t, u.sv, u.d, u.m, u.c
    from s, unnest(${ids}::uuid[], ${events.map((e) => e.type)}::text[], ${events.map((e) => e.schemaVersion ?? 1)}::int[],
                   ${events.map((e) => JSON.stringify(e.data ?? null))}::jsonb[], ${events.map((e) => JSON.stringify(e.metadata))}::jsonb[],
                   ${events.map((e) => e.metadata.occurredAt)}::timestamptz[])
         with ordinality as u(id, t, sv, d, m, c, ord)
    returning *`.execute(trx);
  if (res.rows.length === 0) {
    const actual = await trx
      .selectFrom('streams')
      .select('version')
      .where('site_id', '=', siteId)
      .where('stream_id', '=', streamId)
      .executeTakeFirst();
    throw new WrongExpectedVersion(streamId, expected, actual?.version ?? null);
  }
  return res.rows.sort((a, b) => a.stream_version - b.stream_version).map((r) => toStoredEvent(r));
}

/** The site of a batch of new streams (each `no_stream`, each named once, all of one site), else null. */
function freshStreamsOfOneSite(batch: AppendRequest[]): string | null {
  if (batch.length < 2) return null;
  const site = siteOfStream(batch[0]!.streamId);
  const seen = new Set<string>();
  for (const b of batch) {
    if (b.expectedVersion !== 'no_stream' || seen.has(b.streamId) || siteOfStream(b.streamId) !== site) return null;
    seen.add(b.streamId);
  }
  return site;
}

/**
 * Makes many new streams of one site and inserts their events in one statement (a bulk create, a preview's seed),
 * the events in the batch's order. A stream that exists already gets no rows back: the append is refused as
 * `no_stream` refuses it, and nothing of the batch is written (the transaction rolls back).
 */
async function appendNewStreams(
  trx: Transaction<DB>,
  siteId: string,
  batch: { streamId: string; events: NewEvent[] }[],
): Promise<StoredEvent[][]> {
  const flat = batch.flatMap((b) => b.events.map((e, i) => ({ streamId: b.streamId, version: i + 1, e })));
  const res = await sql<EventRow>`
    with s as (
      insert into streams (site_id, stream_id, version)
      select ${siteId}, u.stream_id, u.n from unnest(${batch.map((b) => b.streamId)}::text[],
                                                     ${batch.map((b) => b.events.length)}::int[]) as u(stream_id, n)
      on conflict (site_id, stream_id) do nothing
      returning stream_id
    )
    insert into events (site_id, stream_id, stream_version, event_id, type, schema_version, data, metadata, created_at)
    select ${siteId}, u.stream_id, u.v, u.id, u.t, u.sv, u.d, u.m, u.c
    from unnest(${flat.map((f) => f.streamId)}::text[], ${flat.map((f) => f.version)}::int[],
                ${flat.map((f) => f.e.eventId ?? randomUUID())}::uuid[], ${flat.map((f) => f.e.type)}::text[],
                ${flat.map((f) => f.e.schemaVersion ?? 1)}::int[], ${flat.map((f) => JSON.stringify(f.e.data ?? null))}::jsonb[],
                ${flat.map((f) => JSON.stringify(f.e.metadata))}::jsonb[], ${flat.map((f) => f.e.metadata.occurredAt)}::timestamptz[])
         with ordinality as u(stream_id, v, id, t, sv, d, m, c, ord)
    join s on s.stream_id = u.stream_id
    order by u.ord
    returning *`.execute(trx);
  const byStream = new Map<string, StoredEvent[]>();
  for (const r of res.rows) {
    const e = toStoredEvent(r);
    const list = byStream.get(e.streamId) ?? [];
    list.push(e);
    byStream.set(e.streamId, list);
  }
  const out: StoredEvent[][] = [];
  for (const b of batch) {
    const rows = byStream.get(b.streamId);
    if (!rows || rows.length !== b.events.length) {
      const actual = await trx
        .selectFrom('streams')
        .select('version')
        .where('site_id', '=', siteId)
        .where('stream_id', '=', b.streamId)
        .executeTakeFirst();
      throw new WrongExpectedVersion(b.streamId, 'no_stream', actual?.version ?? null);
    }
    out.push(rows.sort((x, y) => x.streamVersion - y.streamVersion));
  }
  return out;
}

/** A duplicate key on the log's own tables is a version race; one on a read model (a unique field) is not. */
function isVersionRace(err: unknown): boolean {
  const e = err as { code?: string; table?: string };
  if (e.code === '40P01') return true;
  return e.code === '23505' && (e.table === 'events' || e.table === 'streams' || e.table === undefined);
}
