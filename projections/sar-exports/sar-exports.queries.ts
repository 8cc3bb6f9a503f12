import type { Db } from '../../src/kernel/db/database.ts';

/** A kept export whose file is to be deleted. */
export interface KeptExport {
  sarId: string;
  objectKey: string;
}

/** The site's exports still kept that were made before `before`, oldest first, a page at a time. */
export async function exportsMadeBefore(db: Db, siteId: string, before: Date, limit: number): Promise<KeptExport[]> {
  const rows = await db
    .selectFrom('sar_exports')
    .select(['sar_id', 'object_key'])
    .where('site_id', '=', siteId)
    .where('expired_at', 'is', null)
    .where('exported_at', '<', before)
    .orderBy('exported_at')
    .orderBy('sar_id')
    .limit(limit)
    .execute();
  return rows.map((r) => ({ sarId: r.sar_id, objectKey: r.object_key }));
}

/** The site's exports still kept of one subject. */
export async function exportsOfSubject(db: Db, siteId: string, subjectId: string): Promise<KeptExport[]> {
  const rows = await db
    .selectFrom('sar_exports')
    .select(['sar_id', 'object_key'])
    .where('site_id', '=', siteId)
    .where('subject_id', '=', subjectId)
    .where('expired_at', 'is', null)
    .orderBy('sar_id')
    .execute();
  return rows.map((r) => ({ sarId: r.sar_id, objectKey: r.object_key }));
}
