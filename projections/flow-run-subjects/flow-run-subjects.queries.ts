import { sql } from 'kysely';
import type { Db } from '../../src/kernel/db/database.ts';
import { asSystem } from '../../src/kernel/tenancy/site.ts';

/** The subjects a run of the site concerns (a child or a retry inherits them). */
export async function subjectsOfRun(db: Db, siteId: string, runId: string): Promise<string[]> {
  const rows = await db
    .selectFrom('flow_run_subjects')
    .select('subject_id')
    .where('site_id', '=', siteId)
    .where('run_id', '=', runId)
    .orderBy('subject_id')
    .execute();
  return rows.map((r) => r.subject_id);
}

/**
 * The runs, on every site, that concern one of the subjects, with the runs they started (`<runId>.<nodeId>`, at any
 * depth: their input came from the concerned run): what an erasure shreds.
 */
export async function runsConcerning(db: Db, subjectIds: string[]): Promise<{ siteId: string; runId: string }[]> {
  if (!subjectIds.length) return [];
  const r = await asSystem(db, (db) =>
    sql<{ site_id: string; run_id: string }>`
      with concerned as (
        select distinct site_id, run_id from flow_run_subjects where subject_id = any(${subjectIds}::text[]))
      select c.site_id, c.run_id from concerned c
      union
      select r.site_id, r.run_id from flow_runs r join concerned c
        on r.site_id = c.site_id and starts_with(r.run_id, c.run_id || '.')`.execute(db),
  );
  return r.rows.map((x) => ({ siteId: x.site_id, runId: x.run_id }));
}
