import { sql, type ExpressionBuilder, type RawBuilder, type Selectable } from 'kysely';
import type { Db, DB } from '../../src/kernel/db/database.ts';
import { scopeOf, type PresetQuery, type PresetScope } from '../../src/contracts/presets/presets.events.ts';

/** A view preset as the API shows it, with the scope its ownership gives it. */
export interface PresetRecord {
  id: string;
  collection: string;
  userId: string | null;
  roleId: string | null;
  bookmark: string | null;
  layout: string | null;
  layoutOptions: Record<string, unknown> | null;
  query: PresetQuery;
  sourceScope: PresetScope;
  stale: boolean;
  staleFields: string[];
  createdAt: string;
  updatedAt: string;
}

/** Whose presets a caller sees: their own (a user's), their role chain's (nearest first), and the global ones. */
export interface PresetViewer {
  userId: string | null;
  roles: readonly string[];
}

type Row = Selectable<DB['presets']>;
const iso = (d: Date | string) => new Date(d).toISOString();

const toRecord = (r: Row): PresetRecord => ({
  id: r.preset_id,
  collection: r.collection,
  userId: r.user_id,
  roleId: r.role_id,
  bookmark: r.bookmark,
  layout: r.layout,
  layoutOptions: r.layout_options,
  query: r.query,
  sourceScope: scopeOf({ userId: r.user_id, roleId: r.role_id }),
  stale: r.stale,
  staleFields: r.stale_fields,
  createdAt: iso(r.created_at),
  updatedAt: iso(r.updated_at),
});

/** The rows a viewer sees: their own, their role chain's, the global ones. */
const visibleTo = (v: PresetViewer) => (eb: ExpressionBuilder<DB, 'presets'>) =>
  eb.or([
    ...(v.userId !== null ? [eb('user_id', '=', v.userId)] : []),
    ...(v.roles.length ? [eb.and([eb('user_id', 'is', null), eb('role_id', 'in', [...v.roles])])] : []),
    eb.and([eb('user_id', 'is', null), eb('role_id', 'is', null)]),
  ]);

/** Precedence of a visible row: the user's own, then the role chain nearest first, then global. */
const precedence = (v: PresetViewer): RawBuilder<number> =>
  v.roles.length
    ? sql<number>`case when user_id is not null then 0 ${sql.join(
        v.roles.map((role, i) => sql`when role_id = ${role} then ${sql.lit(i + 1)}`),
        sql` `,
      )} else ${sql.lit(v.roles.length + 1)} end`
    : sql<number>`case when user_id is not null then 0 else 1 end`;

export async function findPreset(db: Db, siteId: string, presetId: string): Promise<PresetRecord | null> {
  const row = await db
    .selectFrom('presets')
    .selectAll()
    .where('site_id', '=', siteId)
    .where('preset_id', '=', presetId)
    .executeTakeFirst();
  return row ? toRecord(row) : null;
}

export interface PresetListFilter {
  /** Null: every preset of the site (a site admin's view). */
  viewer: PresetViewer | null;
  collection?: string;
  userId?: string;
  roleId?: string;
  limit: number;
  offset: number;
}

/** The presets of a site a viewer sees (or all), by collection, scope and name, with how many there are. */
export async function listPresets(
  db: Db,
  siteId: string,
  f: PresetListFilter,
): Promise<{ rows: PresetRecord[]; total: number }> {
  let q = db.selectFrom('presets').where('site_id', '=', siteId);
  if (f.viewer) q = q.where(visibleTo(f.viewer));
  if (f.collection !== undefined) q = q.where('collection', '=', f.collection);
  if (f.userId !== undefined) q = q.where('user_id', '=', f.userId);
  if (f.roleId !== undefined) q = q.where('role_id', '=', f.roleId);
  const rows = await q
    .selectAll()
    .orderBy('collection')
    .orderBy(sql`case when user_id is not null then 0 when role_id is not null then 1 else 2 end`)
    .orderBy(sql`bookmark nulls first`)
    .orderBy('preset_id')
    .limit(f.limit)
    .offset(f.offset)
    .execute();
  const count = await q.select((eb) => eb.fn.countAll<string>().as('n')).executeTakeFirstOrThrow();
  return { rows: rows.map(toRecord), total: Number(count.n) };
}

/** The default view of a collection a viewer gets: their own, else the nearest role's up the chain, else global. */
export async function effectivePreset(
  db: Db,
  siteId: string,
  viewer: PresetViewer,
  collection: string,
): Promise<PresetRecord | null> {
  const row = await db
    .selectFrom('presets')
    .selectAll()
    .where('site_id', '=', siteId)
    .where('collection', '=', collection)
    .where('bookmark', 'is', null)
    .where(visibleTo(viewer))
    .orderBy(precedence(viewer))
    .limit(1)
    .executeTakeFirst();
  return row ? toRecord(row) : null;
}

/** The named bookmarks of a collection a viewer sees: their own, their role chain's (nearest first), global. */
export async function visibleBookmarks(
  db: Db,
  siteId: string,
  viewer: PresetViewer,
  collection: string,
): Promise<PresetRecord[]> {
  const rows = await db
    .selectFrom('presets')
    .selectAll()
    .where('site_id', '=', siteId)
    .where('collection', '=', collection)
    .where('bookmark', 'is not', null)
    .where(visibleTo(viewer))
    .orderBy(precedence(viewer))
    .orderBy('bookmark')
    .orderBy('preset_id')
    .limit(1000)
    .execute();
  return rows.map(toRecord);
}
