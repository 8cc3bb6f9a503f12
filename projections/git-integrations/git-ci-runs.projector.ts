import { sql } from 'kysely';
import { defineProjector } from '../../src/kernel/es/projector.ts';
import type { GitCiRunObserved, GitIntegrationDeleted } from '../../src/contracts/git/git.events.ts';
import { removeIntegrationRows } from './git-integrations.projector.ts';

/** Each integration's CI runs as processing last found them in a delivery, in the append's transaction. */
export const gitCiRunsProjector = defineProjector<GitCiRunObserved | GitIntegrationDeleted>({
  name: 'git-ci-runs',
  version: 1,
  mode: 'inline',
  tables: ['git_ci_runs'],
  handles: ['GitCiRunObserved', 'GitIntegrationDeleted'],
  createTables: async (db, t) => {
    const runs = t('git_ci_runs');
    await sql`
      create table ${sql.table(runs)} (
        site_id text not null,
        integration_id text not null,
        source text not null,
        run_id text not null,
        name text not null,
        sha text not null,
        ref text,
        state text not null,
        url text,
        updated_at timestamptz not null,
        seq bigint not null,
        primary key (site_id, integration_id, source, run_id)
      )`.execute(db);
    await sql`create index ${sql.raw(`${runs}_recent`)} on ${sql.table(runs)} (site_id, seq)`.execute(db);
  },
  apply: async (trx, e) => {
    if (e.type === 'GitIntegrationDeleted') return removeIntegrationRows(trx, 'git_ci_runs', e);
    const d = e.data;
    const row = {
      name: d.name,
      sha: d.sha,
      ref: d.ref,
      state: d.state,
      url: d.url,
      updated_at: d.updatedAt,
      seq: String(e.globalPosition),
    };
    await trx
      .insertInto('git_ci_runs')
      .values({ site_id: e.siteId, integration_id: d.integrationId, source: d.source, run_id: d.runId, ...row })
      .onConflict((oc) => oc.columns(['site_id', 'integration_id', 'source', 'run_id']).doUpdateSet(row))
      .execute();
  },
});
