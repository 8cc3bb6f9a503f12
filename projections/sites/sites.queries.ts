import { sql, type Selectable } from 'kysely';
import { asSite, asSystem } from '../../src/kernel/tenancy/site.ts';
import type { Db, DB } from '../../src/kernel/db/database.ts';

export interface SiteRecord {
  id: string;
  name: string;
  settings: Record<string, unknown>;
  createdAt: string;
  updatedAt: string;
  version: number;
}

type SiteRow = Selectable<DB['sites']>;

const toRecord = (r: SiteRow): SiteRecord => ({
  id: r.site_id,
  name: r.name,
  // The API answers settings as an open object (sites.schemas.ts); the column holds a SiteSettings, an interface.
  settings: r.settings as Record<string, unknown>,
  createdAt: new Date(r.created_at).toISOString(),
  updatedAt: new Date(r.updated_at).toISOString(),
  version: r.version,
});

export async function findSite(db: Db, siteId: string): Promise<SiteRecord | null> {
  const r = await asSite(db, siteId, (db) => sql<SiteRow>`select * from sites where site_id = ${siteId}`.execute(db));
  return r.rows[0] ? toRecord(r.rows[0]) : null;
}

/** Sites in id order; `ids` null means every site (instance admins). */
export async function listSites(db: Db, ids: string[] | null): Promise<SiteRecord[]> {
  const r = await asSystem(db, (db) =>
    ids
      ? sql<SiteRow>`select * from sites where site_id = any(${ids}::text[]) order by site_id`.execute(db)
      : sql<SiteRow>`select * from sites order by site_id`.execute(db),
  );
  return r.rows.map(toRecord);
}

/** Every site's `cors` setting (sites without one left out): the CORS index is built from them. */
export async function siteCorsSettings(db: Db): Promise<{ siteId: string; cors: unknown }[]> {
  const r = await asSystem(db, (db) =>
    sql<{ site_id: string; cors: unknown }>`
    select site_id, settings -> 'cors' as cors from sites where settings -> 'cors' is not null`.execute(db),
  );
  return r.rows.map((row) => ({ siteId: row.site_id, cors: row.cors }));
}

/** Who made the site (a user's id, or a process: `git-previewer`), or null when there is no such site. */
export async function siteCreator(db: Db, siteId: string): Promise<string | null> {
  const r = await asSite(db, siteId, (db) =>
    sql<{ created_by: string }>`select created_by from sites where site_id = ${siteId}`.execute(db),
  );
  return r.rows[0]?.created_by ?? null;
}
