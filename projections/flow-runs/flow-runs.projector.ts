import { sql } from 'kysely';
import { defineProjector } from '../../src/kernel/es/projector.ts';
import {
  FLOW_RUN_EVENT_TYPES,
  type FlowRunEvent,
  type FlowStepCompleted,
  type FlowStepFailed,
} from '../../src/contracts/flows/flow-run.events.ts';
import type { RunStepRow } from './flow-runs.table.ts';

const duration = (from: string, to: string) => Math.max(0, Date.parse(to) - Date.parse(from));

function stepRow(e: FlowStepCompleted | FlowStepFailed): RunStepRow {
  const d = e.data;
  const common = {
    nodeId: d.nodeId,
    operation: d.operation,
    attempt: d.attempt,
    input: d.input ?? null,
    startedAt: d.startedAt,
    finishedAt: d.at,
    durationMs: duration(d.startedAt, d.at),
  };
  return e.type === 'FlowStepCompleted'
    ? { ...common, status: 'succeeded', edge: e.data.edge, output: e.data.output ?? null, error: null, retryAt: null }
    : {
        ...common,
        status: e.data.final ? 'failed' : 'retrying',
        edge: e.data.final ? 'reject' : null,
        output: null,
        error: e.data.error,
        retryAt: e.data.retryAt,
      };
}

/**
 * The runs of each flow with every step's try, for the run history; `next_at` is the worker's due list (inline,
 * so a run started by a request is due at once).
 */
export const flowRunsProjector = defineProjector<FlowRunEvent>({
  name: 'flow-runs',
  version: 1,
  mode: 'inline',
  tables: ['flow_runs'],
  handles: FLOW_RUN_EVENT_TYPES,
  createTables: async (db, t) => {
    const runs = t('flow_runs');
    await sql`
      create table ${sql.table(runs)} (
        site_id text not null,
        run_id text not null,
        flow_id text not null,
        status text not null,
        trigger text not null,
        input jsonb,
        depth integer not null,
        steps jsonb not null,
        error jsonb,
        failed_node text,
        retry_of text,
        started_at timestamptz not null,
        finished_at timestamptz,
        next_at timestamptz,
        version integer not null,
        primary key (site_id, run_id)
      )`.execute(db);
    await sql`create index ${sql.raw(`${runs}_history`)} on ${sql.table(runs)} (site_id, flow_id, started_at desc, run_id)`.execute(
      db,
    );
    // The worker's due query reads only runs that have not ended.
    await sql`create index ${sql.raw(`${runs}_due`)} on ${sql.table(runs)} (next_at) where next_at is not null`.execute(
      db,
    );
  },
  apply: async (trx, e) => {
    const row = () =>
      trx
        .updateTable('flow_runs')
        .where('site_id', '=', e.siteId)
        .where('run_id', '=', e.data.runId)
        .where('version', '<', e.streamVersion);
    const v = { version: e.streamVersion };
    switch (e.type) {
      case 'FlowRunStarted': {
        const d = e.data;
        await trx
          .insertInto('flow_runs')
          .values({
            site_id: e.siteId,
            run_id: d.runId,
            flow_id: d.flowId,
            status: 'running',
            trigger: d.trigger,
            input: JSON.stringify(d.input ?? null),
            depth: d.depth,
            steps: '[]',
            retry_of: d.retryOf?.runId ?? null,
            started_at: d.at,
            next_at: d.at,
            ...v,
          })
          .onConflict((oc) => oc.columns(['site_id', 'run_id']).doNothing())
          .execute();
        return;
      }
      case 'FlowStepCompleted':
      case 'FlowStepFailed': {
        const add = sql<RunStepRow[]>`steps || ${JSON.stringify([stepRow(e)])}::jsonb`;
        const retryAt = e.type === 'FlowStepFailed' && !e.data.final ? e.data.retryAt : null;
        await row()
          .set({ steps: add, status: 'running', next_at: retryAt ?? e.data.at, ...v })
          .execute();
        return;
      }
      case 'FlowRunSleeping':
        await row()
          .set({ status: 'sleeping', next_at: e.data.until, ...v })
          .execute();
        return;
      case 'FlowRunSucceeded':
        await row()
          .set({ status: 'succeeded', finished_at: e.data.at, next_at: null, ...v })
          .execute();
        return;
      case 'FlowRunFailed':
        await row()
          .set({
            status: 'failed',
            error: JSON.stringify(e.data.error),
            failed_node: e.data.nodeId,
            finished_at: e.data.at,
            next_at: null,
            ...v,
          })
          .execute();
        return;
    }
  },
});
