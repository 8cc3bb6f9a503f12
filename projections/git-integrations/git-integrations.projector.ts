import { sql } from 'kysely';
import { defineProjector } from '../../src/kernel/es/projector.ts';
import {
  GIT_INTEGRATION_EVENT_TYPES,
  type GitDeliveryReceived,
  type GitIntegrationEvent,
} from '../../src/features/git/git.events.ts';

/** Each site's git integrations (no secrets) and the deliveries their receivers recorded, in the append's transaction. */
export const gitIntegrationsProjector = defineProjector<GitIntegrationEvent | GitDeliveryReceived>({
  name: 'git-integrations',
  version: 1,
  mode: 'inline',
  tables: ['git_integrations', 'git_deliveries'],
  handles: [...GIT_INTEGRATION_EVENT_TYPES, 'GitDeliveryReceived'],
  createTables: async (db, t) => {
    await sql`
      create table ${sql.table(t('git_integrations'))} (
        site_id text not null,
        integration_id text not null,
        provider text not null,
        repository text not null,
        base_url text,
        auth_method text not null,
        has_token boolean not null,
        sync_config jsonb not null,
        created_at timestamptz not null,
        updated_at timestamptz not null,
        primary key (site_id, integration_id)
      )`.execute(db);
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
    switch (e.type) {
      case 'GitIntegrationCreated': {
        const d = e.data;
        await trx
          .insertInto('git_integrations')
          .values({
            site_id: e.siteId,
            integration_id: d.integrationId,
            provider: d.provider,
            repository: d.repository,
            base_url: d.baseUrl,
            auth_method: d.authMethod,
            has_token: d.token !== null,
            sync_config: JSON.stringify(d.syncConfig),
            created_at: d.at,
            updated_at: d.at,
          })
          .onConflict((oc) => oc.columns(['site_id', 'integration_id']).doNothing())
          .execute();
        return;
      }
      case 'GitIntegrationUpdated': {
        const c = e.data.changes;
        await trx
          .updateTable('git_integrations')
          .set({
            ...(c.repository !== undefined ? { repository: c.repository } : {}),
            ...(c.baseUrl !== undefined ? { base_url: c.baseUrl } : {}),
            ...(c.authMethod !== undefined ? { auth_method: c.authMethod } : {}),
            ...(c.token !== undefined ? { has_token: c.token !== null } : {}),
            ...(c.syncConfig !== undefined ? { sync_config: JSON.stringify(c.syncConfig) } : {}),
            updated_at: e.data.at,
          })
          .where('site_id', '=', e.siteId)
          .where('integration_id', '=', e.data.integrationId)
          .execute();
        return;
      }
      case 'GitIntegrationDeleted':
        await trx
          .deleteFrom('git_integrations')
          .where('site_id', '=', e.siteId)
          .where('integration_id', '=', e.data.integrationId)
          .execute();
        await trx
          .deleteFrom('git_deliveries')
          .where('site_id', '=', e.siteId)
          .where('integration_id', '=', e.data.integrationId)
          .execute();
        return;
      case 'GitDeliveryReceived': {
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
        return;
      }
    }
  },
});
