import { sql } from 'kysely';
import type { Db } from '../../src/kernel/db/database.ts';
import type { ActorRef } from '../../src/kernel/es/event.ts';

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

/** Up to `limit` of the site's events matching the query, newest first. */
export async function siteEvents(db: Db, siteId: string, q: LogQuery): Promise<LogEntry[]> {
  const r = await sql<LogEntry>`
    select global_position::text as pos, event_id, type, stream_id, stream_version, data, metadata, created_at
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
