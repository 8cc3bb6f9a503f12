import { sql } from 'kysely';
import type { Db } from '../../src/kernel/db/database.ts';
import type { LayoutConfig } from '../../src/contracts/pages/page.events.ts';
import type { PageStatus } from '../../src/contracts/pages/page.events.ts';

/** A page as the API shows it. */
export interface PageRecord {
  id: string;
  slug: string;
  title: string;
  status: PageStatus;
  layoutConfig: LayoutConfig | null;
  version: number;
  createdAt: string;
  createdBy: string;
  updatedAt: string;
  updatedBy: string;
}

interface PageRow {
  id: string;
  slug: string;
  title: string;
  status: PageStatus;
  layout_config: LayoutConfig | null;
  version: number;
  created_at: Date;
  created_by: string;
  updated_at: Date;
  updated_by: string;
}

const toRecord = (r: PageRow): PageRecord => ({
  id: r.id,
  slug: r.slug,
  title: r.title,
  status: r.status,
  layoutConfig: r.layout_config,
  version: r.version,
  createdAt: new Date(r.created_at).toISOString(),
  createdBy: r.created_by,
  updatedAt: new Date(r.updated_at).toISOString(),
  updatedBy: r.updated_by,
});

export async function findPage(db: Db, siteId: string, id: string): Promise<PageRecord | null> {
  const r = await sql<PageRow>`select * from pages where site_id = ${siteId} and id = ${id}`.execute(db);
  return r.rows[0] ? toRecord(r.rows[0]) : null;
}

/** The page with this slug; `publishedOnly` for public delivery. */
export async function findPageBySlug(
  db: Db,
  siteId: string,
  slug: string,
  publishedOnly: boolean,
): Promise<PageRecord | null> {
  const r = await sql<PageRow>`
    select * from pages where site_id = ${siteId} and slug = ${slug}
    ${publishedOnly ? sql`and status = 'published'` : sql``} limit 1`.execute(db);
  return r.rows[0] ? toRecord(r.rows[0]) : null;
}

/** One page of the site's pages, oldest first, with the total. */
export async function listPages(
  db: Db,
  siteId: string,
  q: { limit: number; offset: number; status?: PageStatus },
): Promise<{ data: PageRecord[]; total: number }> {
  const status = q.status ? sql`and status = ${q.status}` : sql``;
  const rows = await sql<PageRow>`
    select * from pages where site_id = ${siteId} ${status}
    order by created_at, id limit ${q.limit} offset ${q.offset}`.execute(db);
  const n = await sql<{ n: number }>`select count(*)::int as n from pages where site_id = ${siteId} ${status}`.execute(
    db,
  );
  return { data: rows.rows.map(toRecord), total: n.rows[0]!.n };
}
