import { sql } from 'kysely';
import { defineProjector } from '../../src/kernel/es/projector.ts';
import type { FlowRunStarted, FlowStepCompleted } from '../../src/contracts/flows/flow-run.events.ts';

/**
 * The subjects each run concerns, as its events name them (`subjects` of the start and of item steps): what an
 * erasure asks to find the runs whose keys it destroys. Inline, so a run's subjects are known as soon as recorded.
 */
export const flowRunSubjectsProjector = defineProjector<FlowRunStarted | FlowStepCompleted>({
  name: 'flow-run-subjects',
  version: 1,
  mode: 'inline',
  tables: ['flow_run_subjects'],
  handles: ['FlowRunStarted', 'FlowStepCompleted'],
  createTables: async (db, t) => {
    const table = t('flow_run_subjects');
    await sql`
      create table ${sql.table(table)} (
        site_id text not null,
        run_id text not null,
        subject_id text not null,
        primary key (site_id, run_id, subject_id)
      )`.execute(db);
    await sql`create index ${sql.raw(`${table}_subject`)} on ${sql.table(table)} (subject_id)`.execute(db);
  },
  apply: async (trx, e) => {
    const subjects = e.data.subjects ?? [];
    if (!subjects.length) return;
    await trx
      .insertInto('flow_run_subjects')
      .values(subjects.map((subject_id) => ({ site_id: e.siteId, run_id: e.data.runId, subject_id })))
      .onConflict((oc) => oc.columns(['site_id', 'run_id', 'subject_id']).doNothing())
      .execute();
  },
});
