import { sql } from 'kysely';
import { defineProjector } from '../../src/kernel/es/projector.ts';
import type { GitIntegrationDeleted, GitPullRequestObserved } from '../../src/contracts/git/git.events.ts';
import { removeIntegrationRows } from './git-integrations.projector.ts';

/** Each integration's pull requests as processing last found them in a delivery, in the append's transaction. */
export const gitPullRequestsProjector = defineProjector<GitPullRequestObserved | GitIntegrationDeleted>({
  name: 'git-pull-requests',
  version: 1,
  mode: 'inline',
  tables: ['git_pull_requests'],
  handles: ['GitPullRequestObserved', 'GitIntegrationDeleted'],
  createTables: async (db, t) => {
    const prs = t('git_pull_requests');
    await sql`
      create table ${sql.table(prs)} (
        site_id text not null,
        integration_id text not null,
        number integer not null,
        title text not null,
        state text not null,
        action text not null,
        head_ref text not null,
        head_sha text not null,
        base_ref text not null,
        url text,
        updated_at timestamptz not null,
        seq bigint not null,
        primary key (site_id, integration_id, number)
      )`.execute(db);
    await sql`create index ${sql.raw(`${prs}_recent`)} on ${sql.table(prs)} (site_id, seq)`.execute(db);
  },
  apply: async (trx, e) => {
    if (e.type === 'GitIntegrationDeleted') return removeIntegrationRows(trx, 'git_pull_requests', e);
    const d = e.data;
    const row = {
      title: d.title,
      state: d.state,
      action: d.action,
      head_ref: d.headRef,
      head_sha: d.headSha,
      base_ref: d.baseRef,
      url: d.url,
      updated_at: d.updatedAt,
      seq: String(e.globalPosition),
    };
    await trx
      .insertInto('git_pull_requests')
      .values({ site_id: e.siteId, integration_id: d.integrationId, number: d.number, ...row })
      .onConflict((oc) => oc.columns(['site_id', 'integration_id', 'number']).doUpdateSet(row))
      .execute();
  },
});
