import type { Selectable } from 'kysely';
import type { Db, DB } from '../../src/kernel/db/database.ts';
import { asSystem } from '../../src/kernel/tenancy/site.ts';

/** An erasure as the read model knows it: where its stream is, and whether it has its proof. */
export interface ErasureRow {
  siteId: string;
  erasureId: string;
  subjectId: string;
  startedAt: Date;
  completed: boolean;
}

const toRow = (r: Selectable<DB['erasures']>): ErasureRow => ({
  siteId: r.site_id,
  erasureId: r.erasure_id,
  subjectId: r.subject_id,
  startedAt: new Date(r.started_at),
  completed: r.completed_at !== null,
});

/** A page of the site's erasures, newest first, and how many there are. */
export async function listErasures(
  db: Db,
  siteId: string,
  page: { limit: number; offset: number },
): Promise<{ rows: ErasureRow[]; total: number }> {
  const rows = await db
    .selectFrom('erasures')
    .selectAll()
    .where('site_id', '=', siteId)
    .orderBy('started_at', 'desc')
    .orderBy('erasure_id', 'desc')
    .limit(page.limit)
    .offset(page.offset)
    .execute();
  const count = await db
    .selectFrom('erasures')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where('site_id', '=', siteId)
    .executeTakeFirstOrThrow();
  return { rows: rows.map(toRow), total: Number(count.n) };
}

/**
 * Erasures without their proof, of every site (a person is erased instance-wide, whichever site asked): of one
 * subject, or all of them started before `startedBefore`, oldest first.
 */
export async function incompleteErasures(
  db: Db,
  filter: { subjectId: string } | { startedBefore: Date; limit: number },
): Promise<ErasureRow[]> {
  return asSystem(db, async (db) => {
    let q = db.selectFrom('erasures').selectAll().where('completed_at', 'is', null);
    q =
      'subjectId' in filter
        ? q.where('subject_id', '=', filter.subjectId)
        : q.where('started_at', '<', filter.startedBefore).limit(filter.limit);
    const rows = await q.orderBy('started_at').orderBy('erasure_id').execute();
    return rows.map(toRow);
  });
}
