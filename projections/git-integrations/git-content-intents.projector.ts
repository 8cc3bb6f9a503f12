import { sql } from 'kysely';
import { defineProjector } from '../../src/kernel/es/projector.ts';
import type {
  GitContentIntentRemoved,
  GitContentIntentSet,
  GitIntegrationDeleted,
} from '../../src/contracts/git/git.events.ts';
import { removeIntegrationRows } from './git-integrations.projector.ts';

/**
 * The content intents each integration's last gitops sync recorded (what the repository declares), in the append's
 * transaction: the next sync finds in it the intents a commit no longer declares.
 */
export const gitContentIntentsProjector = defineProjector<
  GitContentIntentSet | GitContentIntentRemoved | GitIntegrationDeleted
>({
  name: 'git-content-intents',
  version: 1,
  mode: 'inline',
  tables: ['git_content_intents'],
  handles: ['GitContentIntentSet', 'GitContentIntentRemoved', 'GitIntegrationDeleted'],
  createTables: async (db, t) => {
    await sql`
      create table ${sql.table(t('git_content_intents'))} (
        site_id text not null,
        integration_id text not null,
        collection text not null,
        item_id text not null,
        path text not null,
        sha text not null,
        intent_values jsonb not null,
        updated_at timestamptz not null,
        primary key (site_id, integration_id, collection, item_id)
      )`.execute(db);
  },
  apply: async (trx, e) => {
    switch (e.type) {
      case 'GitContentIntentSet': {
        const d = e.data;
        const row = { path: d.path, sha: d.sha, intent_values: JSON.stringify(d.values), updated_at: d.at };
        await trx
          .insertInto('git_content_intents')
          .values({
            site_id: e.siteId,
            integration_id: d.integrationId,
            collection: d.collection,
            item_id: d.itemId,
            ...row,
          })
          .onConflict((oc) => oc.columns(['site_id', 'integration_id', 'collection', 'item_id']).doUpdateSet(row))
          .execute();
        return;
      }
      case 'GitContentIntentRemoved':
        await trx
          .deleteFrom('git_content_intents')
          .where('site_id', '=', e.siteId)
          .where('integration_id', '=', e.data.integrationId)
          .where('collection', '=', e.data.collection)
          .where('item_id', '=', e.data.itemId)
          .execute();
        return;
      case 'GitIntegrationDeleted':
        await removeIntegrationRows(trx, 'git_content_intents', e);
        return;
    }
  },
});
