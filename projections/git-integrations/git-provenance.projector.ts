import { sql } from 'kysely';
import { defineProjector } from '../../src/kernel/es/projector.ts';
import type { GitIntegrationDeleted, GitopsSynced } from '../../src/contracts/git/git.events.ts';
import { removeIntegrationRows } from './git-integrations.projector.ts';

/**
 * Which commit set which field of an item or page: the last gitops sync that wrote a field is its provenance,
 * written in the append's transaction.
 */
export const gitProvenanceProjector = defineProjector<GitopsSynced | GitIntegrationDeleted>({
  name: 'git-provenance',
  version: 1,
  mode: 'inline',
  tables: ['git_provenance'],
  handles: ['GitopsSynced', 'GitIntegrationDeleted'],
  createTables: async (db, t) => {
    const provenance = t('git_provenance');
    await sql`
      create table ${sql.table(provenance)} (
        site_id text not null,
        collection text not null,
        item_id text not null,
        field text not null,
        integration_id text not null,
        sha text not null,
        path text not null,
        set_at timestamptz not null,
        primary key (site_id, collection, item_id, field)
      )`.execute(db);
    await sql`create index ${sql.raw(`${provenance}_commit`)} on ${sql.table(provenance)} (site_id, sha)`.execute(db);
  },
  apply: async (trx, e) => {
    if (e.type === 'GitIntegrationDeleted') return removeIntegrationRows(trx, 'git_provenance', e);
    const d = e.data;
    for (const a of d.applied)
      for (const field of a.fields) {
        const row = { integration_id: d.integrationId, sha: d.sha, path: a.path, set_at: d.at };
        await trx
          .insertInto('git_provenance')
          .values({ site_id: e.siteId, collection: a.collection, item_id: a.itemId, field, ...row })
          .onConflict((oc) => oc.columns(['site_id', 'collection', 'item_id', 'field']).doUpdateSet(row))
          .execute();
      }
  },
});
