import { sql } from 'kysely';
import { defineProjector } from '../../src/kernel/es/projector.ts';
import type { GitDeliveryReceived, GitIntegrationDeleted } from '../../src/contracts/git/git.events.ts';
import { removeIntegrationRows } from './git-integrations.projector.ts';

/** The deliveries each integration's receiver verified and recorded, in log order, in the append's transaction. */
export const gitDeliveriesProjector = defineProjector<GitDeliveryReceived | GitIntegrationDeleted>({
  name: 'git-deliveries',
  version: 1,
  mode: 'inline',
  tables: ['git_deliveries'],
  handles: ['GitDeliveryReceived', 'GitIntegrationDeleted'],
  createTables: async (db, t) => {
    const deliveries = t('git_deliveries');
    await sql`
      create table ${sql.table(deliveries)} (
        site_id text not null,
        integration_id text not null,
        delivery_key text not null,
        provider text not null,
        delivery_id text not null,
        event text not null,
        received_at timestamptz not null,
        seq bigint not null,
        primary key (site_id, integration_id, delivery_key)
      )`.execute(db);
    await sql`create index ${sql.raw(`${deliveries}_integration`)} on ${sql.table(deliveries)} (site_id, integration_id, seq)`.execute(
      db,
    );
  },
  apply: async (trx, e) => {
    if (e.type === 'GitIntegrationDeleted') return removeIntegrationRows(trx, 'git_deliveries', e);
    const d = e.data;
    await trx
      .insertInto('git_deliveries')
      .values({
        site_id: e.siteId,
        integration_id: d.integrationId,
        delivery_key: d.key,
        provider: d.provider,
        delivery_id: d.deliveryId,
        event: d.event,
        received_at: d.at,
        seq: String(e.globalPosition),
      })
      .onConflict((oc) => oc.columns(['site_id', 'integration_id', 'delivery_key']).doNothing())
      .execute();
  },
});
