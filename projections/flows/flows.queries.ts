import { sql, type Selectable } from 'kysely';
import { asSystem } from '../../src/kernel/tenancy/site.ts';
import type { Db, DB } from '../../src/kernel/db/database.ts';
import type { FlowDefinition, FlowStatus, FlowTrigger } from '../../src/contracts/flows/flow.events.ts';

/** A flow as the API shows it: its definition, never its webhook token (only whether it has one). */
export interface FlowRecord extends FlowDefinition {
  id: string;
  nextRunAt: string | null;
  hasToken: boolean;
  version: number;
  createdAt: string;
  updatedAt: string;
}

const iso = (d: Date | string) => new Date(d).toISOString();
const COLUMNS = [
  'flow_id',
  'name',
  'description',
  'status',
  'trigger',
  'trigger_options',
  'graph',
  'run_as',
  'options',
  'next_run_at',
  'has_token',
  'version',
  'created_at',
  'updated_at',
] as const;

type Row = Pick<Selectable<DB['flows']>, (typeof COLUMNS)[number]>;

const toRecord = (r: Row): FlowRecord => ({
  id: r.flow_id,
  name: r.name,
  description: r.description,
  status: r.status as FlowStatus,
  trigger: r.trigger as FlowTrigger,
  triggerOptions: r.trigger_options,
  graph: r.graph,
  runAs: r.run_as,
  options: r.options,
  nextRunAt: r.next_run_at && iso(r.next_run_at),
  hasToken: r.has_token,
  version: r.version,
  createdAt: iso(r.created_at),
  updatedAt: iso(r.updated_at),
});

/** One flow of the site, or null. */
export async function findFlow(db: Db, siteId: string, flowId: string): Promise<FlowRecord | null> {
  const r = await db
    .selectFrom('flows')
    .select(COLUMNS)
    .where('site_id', '=', siteId)
    .where('flow_id', '=', flowId)
    .executeTakeFirst();
  return r ? toRecord(r) : null;
}

export interface FlowListOptions {
  status?: FlowStatus;
  trigger?: FlowTrigger;
  sort: 'name' | 'createdAt' | 'updatedAt';
  descending: boolean;
  limit: number;
  offset: number;
}

const SORT_COLUMN = new Map([
  ['name', 'name'],
  ['createdAt', 'created_at'],
  ['updatedAt', 'updated_at'],
] as const);

/** A page of the site's flows, filtered by status and trigger, with the count of all that match. */
export async function listFlows(
  db: Db,
  siteId: string,
  o: FlowListOptions,
): Promise<{ rows: FlowRecord[]; total: number }> {
  let q = db.selectFrom('flows').where('site_id', '=', siteId);
  if (o.status) q = q.where('status', '=', o.status);
  if (o.trigger) q = q.where('trigger', '=', o.trigger);
  const dir = o.descending ? 'desc' : 'asc';
  const rows = await q
    .select(COLUMNS)
    .orderBy(SORT_COLUMN.get(o.sort)!, dir)
    .orderBy('flow_id', dir)
    .limit(o.limit)
    .offset(o.offset)
    .execute();
  const count = await q.select((eb) => eb.fn.countAll<string>().as('n')).executeTakeFirstOrThrow();
  return { rows: rows.map(toRecord), total: Number(count.n) };
}

/** Active schedule flows of every site whose next firing has come (the schedule tick's list), oldest first. */
export async function dueScheduledFlows(
  db: Db,
  now: Date,
  limit: number,
): Promise<{ siteId: string; flowId: string; nextRunAt: string }[]> {
  const r = await asSystem(db, (db) =>
    sql<{ site_id: string; flow_id: string; next_run_at: Date }>`
      select site_id, flow_id, next_run_at from flows
      where status = 'active' and trigger = 'schedule' and next_run_at <= ${now}
      order by next_run_at limit ${limit}`.execute(db),
  );
  return r.rows.map((x) => ({ siteId: x.site_id, flowId: x.flow_id, nextRunAt: iso(x.next_run_at) }));
}

/** A site's active event flows (the caller drops those made after the event it weighs: they hear none of the past). */
export async function activeEventFlows(db: Db, siteId: string): Promise<FlowRecord[]> {
  const rows = await db
    .selectFrom('flows')
    .select(COLUMNS)
    .where('site_id', '=', siteId)
    .where('status', '=', 'active')
    .where('trigger', '=', 'event')
    .orderBy('flow_id')
    .execute();
  return rows.map(toRecord);
}
