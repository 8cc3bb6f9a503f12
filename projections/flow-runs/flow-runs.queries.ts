import { sql, type Selectable } from 'kysely';
import type { Db, DB } from '../../src/kernel/db/database.ts';
import { asSystem } from '../../src/kernel/tenancy/site.ts';
import type { RunStepRow } from './flow-runs.table.ts';

/** A run as the history shows it. */
export interface FlowRunRecord {
  id: string;
  flowId: string;
  status: 'running' | 'sleeping' | 'succeeded' | 'failed';
  trigger: string;
  input: unknown;
  depth: number;
  error: { code: string; message: string } | null;
  failedNode: string | null;
  retryOf: string | null;
  startedAt: string;
  finishedAt: string | null;
  durationMs: number | null;
  steps: RunStepRow[];
}

const iso = (d: Date | string) => new Date(d).toISOString();
const COLUMNS = [
  'run_id',
  'flow_id',
  'status',
  'trigger',
  'input',
  'depth',
  'steps',
  'error',
  'failed_node',
  'retry_of',
  'started_at',
  'finished_at',
] as const;
type Row = Pick<Selectable<DB['flow_runs']>, (typeof COLUMNS)[number]>;

const toRecord = (r: Row): FlowRunRecord => ({
  id: r.run_id,
  flowId: r.flow_id,
  status: r.status as FlowRunRecord['status'],
  trigger: r.trigger,
  input: r.input,
  depth: r.depth,
  error: r.error,
  failedNode: r.failed_node,
  retryOf: r.retry_of,
  startedAt: iso(r.started_at),
  finishedAt: r.finished_at && iso(r.finished_at),
  durationMs: r.finished_at ? r.finished_at.getTime() - r.started_at.getTime() : null,
  steps: r.steps,
});

/** One run of a flow of the site, or null. */
export async function findFlowRun(
  db: Db,
  siteId: string,
  flowId: string,
  runId: string,
): Promise<FlowRunRecord | null> {
  const r = await db
    .selectFrom('flow_runs')
    .select(COLUMNS)
    .where('site_id', '=', siteId)
    .where('flow_id', '=', flowId)
    .where('run_id', '=', runId)
    .executeTakeFirst();
  return r ? toRecord(r) : null;
}

/** A page of a flow's runs, newest first, filtered by status, with the count of all that match. */
export async function listFlowRuns(
  db: Db,
  siteId: string,
  flowId: string,
  o: { status?: string; limit: number; offset: number },
): Promise<{ rows: FlowRunRecord[]; total: number }> {
  let q = db.selectFrom('flow_runs').where('site_id', '=', siteId).where('flow_id', '=', flowId);
  if (o.status) q = q.where('status', '=', o.status);
  const rows = await q
    .select(COLUMNS)
    .orderBy('started_at', 'desc')
    .orderBy('run_id', 'desc')
    .limit(o.limit)
    .offset(o.offset)
    .execute();
  const count = await q.select((eb) => eb.fn.countAll<string>().as('n')).executeTakeFirstOrThrow();
  return { rows: rows.map(toRecord), total: Number(count.n) };
}

/**
 * Runs of every site that are due now (started, woken, to retry): the flow worker's round. Fair per site: at most
 * `perSite` runs of one site, taken in turns (each site's oldest first, then each site's second, …), so a site with
 * thousands of due runs fills no round and another site's run waits one round at most.
 */
export async function dueFlowRuns(
  db: Db,
  now: Date,
  round: { total: number; perSite: number },
): Promise<{ siteId: string; runId: string }[]> {
  const r = await asSystem(db, (db) =>
    sql<Pick<Selectable<DB['flow_runs']>, 'site_id' | 'run_id'>>`
      select site_id, run_id from (
        select site_id, run_id, next_at,
               row_number() over (partition by site_id order by next_at, run_id) as turn
        from flow_runs where next_at is not null and next_at <= ${now}
      ) due
      where turn <= ${round.perSite}
      order by turn, next_at, site_id, run_id
      limit ${round.total}`.execute(db),
  );
  return r.rows.map((x) => ({ siteId: x.site_id, runId: x.run_id }));
}

/**
 * When the flow worker next has work: the earliest `next_at` of a run (due now or later) or `next_run_at` of an
 * active schedule; null when there is none. One statement, across every site.
 */
export async function nextFlowWorkAt(db: Db): Promise<Date | null> {
  const r = await asSystem(db, (db) =>
    sql<{ at: Date | null }>`
      select least(
        (select min(next_at) from flow_runs where next_at is not null),
        (select min(next_run_at) from flows where status = 'active' and trigger = 'schedule')
      ) as at`.execute(db),
  );
  return r.rows[0]?.at ?? null;
}

/**
 * How many runs of the site are live (running, due, sleeping: every run that has not ended has a `next_at`), counted
 * up to `cap` at most: the check of a site's live runs reads no more rows than its cap.
 */
export async function countLiveRuns(db: Db, siteId: string, cap: number): Promise<number> {
  const r = await sql<{ n: string }>`
    select count(*) as n from (
      select 1 from flow_runs where site_id = ${siteId} and next_at is not null limit ${cap}
    ) live`.execute(db);
  return Number(r.rows[0]?.n ?? 0);
}

/**
 * Deletes the site's runs that ended (succeeded or failed) before `before`; runs under way (running, sleeping, due
 * for a retry) stay whatever their age. Answers how many went; the log keeps every run's stream, so a rebuild brings
 * them back until the next prune.
 */
export async function pruneFinishedRuns(db: Db, siteId: string, before: Date): Promise<number> {
  const r = await db
    .deleteFrom('flow_runs')
    .where('site_id', '=', siteId)
    .where('status', 'in', ['succeeded', 'failed'])
    .where('finished_at', '<', before)
    .executeTakeFirst();
  return Number(r.numDeletedRows);
}
