import { sql, type Transaction } from 'kysely';
import type { DB } from '../../src/kernel/db/database.ts';
import { defineProjector, type StoredEventOf } from '../../src/kernel/es/projector.ts';
import {
  GIT_INTEGRATION_EVENT_TYPES,
  type GitIntegrationDeleted,
  type GitIntegrationEvent,
} from '../../src/contracts/git/git.events.ts';

/**
 * Each site's git integrations (no secrets), in the append's transaction. Its name and version are those this table
 * has always been projected under, so a database that holds it keeps it without a rebuild.
 */
export const gitIntegrationsProjector = defineProjector<GitIntegrationEvent>({
  name: 'git-integrations',
  version: 3,
  mode: 'inline',
  tables: ['git_integrations'],
  handles: GIT_INTEGRATION_EVENT_TYPES,
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
        app jsonb,
        sync_config jsonb not null,
        created_at timestamptz not null,
        updated_at timestamptz not null,
        primary key (site_id, integration_id)
      )`.execute(db);
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
            app: d.app && d.appKey ? JSON.stringify(d.app) : null,
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
            ...(c.app !== undefined ? { app: c.app ? JSON.stringify(c.app) : null } : {}),
            ...(c.syncConfig !== undefined ? { sync_config: JSON.stringify(c.syncConfig) } : {}),
            updated_at: e.data.at,
          })
          .where('site_id', '=', e.siteId)
          .where('integration_id', '=', e.data.integrationId)
          .execute();
        return;
      }
      case 'GitIntegrationDeleted':
        await removeIntegrationRows(trx, 'git_integrations', e);
        return;
    }
  },
});

/**
 * A deleted integration leaves no row in its own table nor in those of its activity (deliveries, pull requests, CI
 * runs, content intents, provenance). Its previews' rows stay: their teardown reads which are live.
 */
export async function removeIntegrationRows(
  trx: Transaction<DB>,
  table:
    | 'git_integrations'
    | 'git_deliveries'
    | 'git_pull_requests'
    | 'git_ci_runs'
    | 'git_content_intents'
    | 'git_provenance',
  e: StoredEventOf<GitIntegrationDeleted>,
): Promise<void> {
  await trx
    .deleteFrom(table)
    .where('site_id', '=', e.siteId)
    .where('integration_id', '=', e.data.integrationId)
    .execute();
}
