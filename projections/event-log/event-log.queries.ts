import { sql } from 'kysely';
import type { Db } from '../../src/kernel/db/database.ts';
import type { ActorRef, EventMetadata } from '../../src/kernel/es/event.ts';

/**
 * The log itself as a read surface: a site's events, newest first, for the audit view. Not a projection (the log
 * needs none), but the one place outside the event store that reads the `events` table.
 */
export interface LogEntry {
  /** The global position as text (a bigint), for the `before` cursor. */
  pos: string;
  event_id: string;
  type: string;
  stream_id: string;
  stream_version: number;
  data: unknown;
  metadata: { actor: ActorRef; correlationId: string };
  created_at: Date;
}

export interface LogQuery {
  type?: string;
  stream?: string;
  actor?: string;
  from?: string;
  to?: string;
  /** Only events before this global position. */
  before?: string;
  limit: number;
}

/** The columns an event is listed with: its global position as text (a bigint: the cursor of the next page). */
const EVENT_COLUMNS = sql`global_position::text as pos, event_id, type, stream_id, stream_version, data, metadata, created_at`;

/** Up to `limit` of the site's events matching the query, newest first. */
export async function siteEvents(db: Db, siteId: string, q: LogQuery): Promise<LogEntry[]> {
  const r = await sql<LogEntry>`
    select ${EVENT_COLUMNS}
    from events
    where site_id = ${siteId}
      ${q.type ? sql`and type = ${q.type}` : sql``}
      ${q.stream ? sql`and stream_id = ${q.stream}` : sql``}
      ${q.actor ? sql`and metadata -> 'actor' ->> 'id' = ${q.actor}` : sql``}
      ${q.from ? sql`and created_at >= ${new Date(q.from).toISOString()}` : sql``}
      ${q.to ? sql`and created_at <= ${new Date(q.to).toISOString()}` : sql``}
      ${q.before ? sql`and global_position < ${q.before}::bigint` : sql``}
    order by global_position desc limit ${q.limit}`.execute(db);
  return r.rows;
}

/** An event of the log as a personal-data export lists it. */
export interface SubjectEventRow {
  /** The global position as text (a bigint), the cursor of the next page. */
  pos: string;
  event_id: string;
  type: string;
  stream_id: string;
  stream_version: number;
  data: unknown;
  metadata: { actor: ActorRef; correlationId: string };
  created_at: Date;
}

/** Which of a site's events are about a subject: theirs as actor, or those of a stream of their own. */
export interface SubjectEventQuery {
  /** `metadata.actor.id` of the events (the `events_actor` index). */
  actor?: string;
  /** Or: every event of this stream whose actor is someone else (`excludeActor`). */
  stream?: string;
  excludeActor?: string;
  /** Only events whose data names no site, or one of these (instance-wide events, for one site's request). */
  dataSites?: string[];
  /** Only events after this global position. */
  after: string | null;
  limit: number;
}

/** A page of the site's events about a subject, oldest first (keyset on the global position: flat at any depth). */
export async function subjectEvents(db: Db, siteId: string, q: SubjectEventQuery): Promise<SubjectEventRow[]> {
  const r = await sql<SubjectEventRow>`
    select ${EVENT_COLUMNS}
    from events
    where site_id = ${siteId}
      ${q.actor !== undefined ? sql`and metadata -> 'actor' ->> 'id' = ${q.actor}` : sql``}
      ${q.stream !== undefined ? sql`and stream_id = ${q.stream}` : sql``}
      ${q.excludeActor !== undefined ? sql`and metadata -> 'actor' ->> 'id' is distinct from ${q.excludeActor}` : sql``}
      ${q.dataSites ? sql`and (data ->> 'siteId' is null or data ->> 'siteId' = any(${q.dataSites}::text[]))` : sql``}
      ${q.after !== null ? sql`and global_position > ${q.after}::bigint` : sql``}
    order by global_position limit ${q.limit}`.execute(db);
  return r.rows;
}

/** An event as a copy of a site's streams reads it (a preview's seed). */
export interface CopiedEventRow {
  pos: string;
  type: string;
  stream_id: string;
  schema_version: number;
  data: unknown;
  metadata: EventMetadata;
}

/** The last global position of the site's events now (as text), or null for a site without events. */
export async function siteHead(db: Db, siteId: string): Promise<string | null> {
  const r = await sql<{ pos: string | null }>`
    select max(global_position)::text as pos from events where site_id = ${siteId}`.execute(db);
  return r.rows[0]?.pos ?? null;
}

/**
 * A page of the site's events in streams of the given categories (the second part of a stream id), in log order,
 * after `after` and at most at `upTo` (global positions as text).
 */
export async function siteStreamEvents(
  db: Db,
  siteId: string,
  q: { categories: readonly string[]; after: string | null; upTo: string; limit: number },
): Promise<CopiedEventRow[]> {
  const r = await sql<CopiedEventRow>`
    select global_position::text as pos, type, stream_id, schema_version, data, metadata
    from events
    where site_id = ${siteId}
      and split_part(stream_id, '/', 2) = any(${[...q.categories]}::text[])
      ${q.after === null ? sql`` : sql`and global_position > ${q.after}::bigint`}
      and global_position <= ${q.upTo}::bigint
    order by global_position
    limit ${q.limit}`.execute(db);
  return r.rows;
}
