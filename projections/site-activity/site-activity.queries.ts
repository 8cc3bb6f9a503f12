import { sql } from 'kysely';

export async function siteActivity(
  db: import('../../src/kernel/db/database.ts').Db,
  siteId: string,
): Promise<{ eventCount: number; lastEventAt: string | null }> {
  const r = await sql<{ event_count: string; last_event_at: Date }>`
    select event_count, last_event_at from site_activity where site_id = ${siteId}`.execute(db);
  const row = r.rows[0];
  return {
    eventCount: Number(row?.event_count ?? 0),
    lastEventAt: row ? new Date(row.last_event_at).toISOString() : null,
  };
}
