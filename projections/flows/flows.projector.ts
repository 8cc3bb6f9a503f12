import { sql } from 'kysely';
import { defineProjector } from '../../src/kernel/es/projector.ts';
import { FLOW_EVENT_TYPES, type FlowDefinition, type FlowEvent } from '../../src/contracts/flows/flow.events.ts';

const columns = (d: FlowDefinition) => ({
  name: d.name,
  description: d.description,
  status: d.status,
  trigger: d.trigger,
  trigger_options: JSON.stringify(d.triggerOptions),
  graph: JSON.stringify(d.graph),
  run_as: d.runAs,
  options: JSON.stringify(d.options),
});

/** A site's flows for lists and details, written in the append transaction; deleted flows leave the table. */
export const flowsProjector = defineProjector<FlowEvent>({
  name: 'flows',
  version: 1,
  mode: 'inline',
  tables: ['flows'],
  handles: FLOW_EVENT_TYPES,
  createTables: async (db, t) => {
    const flows = t('flows');
    await sql`
      create table ${sql.table(flows)} (
        site_id text not null,
        flow_id text not null,
        name text not null,
        description text,
        status text not null,
        trigger text not null,
        trigger_options jsonb not null,
        graph jsonb not null,
        run_as text not null,
        options jsonb not null,
        next_run_at timestamptz,
        has_token boolean not null,
        version integer not null,
        created_at timestamptz not null,
        updated_at timestamptz not null,
        primary key (site_id, flow_id)
      )`.execute(db);
    await sql`create index ${sql.raw(`${flows}_list`)} on ${sql.table(flows)} (site_id, status, trigger)`.execute(db);
    // The schedule's due query (next_run_at <= now) reads only active schedule flows.
    await sql`create index ${sql.raw(`${flows}_due`)} on ${sql.table(flows)} (next_run_at)
              where status = 'active' and trigger = 'schedule'`.execute(db);
  },
  apply: async (trx, e) => {
    const row = () => trx.updateTable('flows').where('site_id', '=', e.siteId).where('flow_id', '=', e.data.flowId);
    // Idempotent: an event already applied (its version reached) changes nothing.
    const newer = (q: ReturnType<typeof row>) => q.where('version', '<', e.streamVersion).execute();
    switch (e.type) {
      case 'FlowCreated': {
        const d = e.data;
        await trx
          .insertInto('flows')
          .values({
            site_id: e.siteId,
            flow_id: d.flowId,
            ...columns(d.definition),
            next_run_at: d.nextRunAt,
            has_token: false,
            version: e.streamVersion,
            created_at: d.at,
            updated_at: d.at,
          })
          .onConflict((oc) => oc.columns(['site_id', 'flow_id']).doNothing())
          .execute();
        return;
      }
      case 'FlowUpdated': {
        const d = e.data;
        const set = { ...columns(d.definition), next_run_at: d.nextRunAt, version: e.streamVersion, updated_at: d.at };
        await newer(row().set(set));
        return;
      }
      case 'FlowTokenRotated':
        await newer(row().set({ has_token: true, version: e.streamVersion, updated_at: e.data.at }));
        return;
      case 'FlowScheduleAdvanced':
        // The version moves (If-Match sees the stream), the update time does not: nobody saved the flow.
        await newer(row().set({ next_run_at: e.data.nextRunAt, version: e.streamVersion }));
        return;
      case 'FlowDeleted':
        await trx.deleteFrom('flows').where('site_id', '=', e.siteId).where('flow_id', '=', e.data.flowId).execute();
        return;
    }
  },
});
