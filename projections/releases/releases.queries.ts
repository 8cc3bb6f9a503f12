import { sql, type Selectable } from 'kysely';
import { asSite, asSystem } from '../../src/kernel/tenancy/site.ts';
import type { Db, DB } from '../../src/kernel/db/database.ts';
import type { ReleaseState } from '../../src/contracts/releases/release.events.ts';

export type ReleaseRecord = Extract<ReleaseState, { exists: true }> & {
  id: string;
  createdAt: string;
  updatedAt: string;
};

type Row = Selectable<DB['releases']>;
const toRecord = (r: Row) =>
  ({
    ...(r.state as Extract<ReleaseState, { exists: true }>),
    id: r.release_id,
    createdAt: new Date(r.created_at).toISOString(),
    updatedAt: new Date(r.updated_at).toISOString(),
  }) as ReleaseRecord;

export async function findRelease(db: Db, siteId: string, id: string): Promise<ReleaseRecord | null> {
  const r = await asSite(db, siteId, (db) =>
    sql<Row>`select * from releases where site_id = ${siteId} and release_id = ${id} and deleted_at is null`.execute(
      db,
    ),
  );
  return r.rows[0] ? toRecord(r.rows[0]) : null;
}

export async function listReleases(
  db: Db,
  siteId: string,
  q: { status?: string; limit: number; offset: number },
): Promise<{ rows: ReleaseRecord[]; total: number }> {
  const where = sql`site_id = ${siteId} and deleted_at is null ${q.status ? sql`and status = ${q.status}` : sql``}`;
  const rows = await sql<Row>`select * from releases where ${where} order by created_at desc, release_id
    limit ${q.limit} offset ${q.offset}`.execute(db);
  const total = await sql<{ n: number }>`select count(*)::int as n from releases where ${where}`.execute(db);
  return { rows: rows.rows.map(toRecord), total: total.rows[0]!.n };
}

/** Releases whose time has come (scheduled, publishAt ≤ now) or whose publish was cut off, on every site. */
export async function dueReleases(db: Db, now: Date): Promise<(ReleaseRecord & { siteId: string })[]> {
  // The scheduler looks across every site; each row carries its folded state, so no second read per release.
  const r = await asSystem(db, (db) =>
    sql<Row>`
    select * from releases
    where deleted_at is null and ((status = 'scheduled' and publish_at <= ${now}) or publishing)
    order by publish_at nulls first`.execute(db),
  );
  return r.rows.map((x) => ({ ...toRecord(x), siteId: x.site_id }));
}
