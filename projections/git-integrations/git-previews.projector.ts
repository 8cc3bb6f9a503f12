import { sql } from 'kysely';
import { defineProjector } from '../../src/kernel/es/projector.ts';
import type {
  GitPreviewProvisioned,
  GitPreviewProvisioning,
  GitPreviewRefreshed,
  GitPreviewTornDown,
} from '../../src/contracts/git/git.events.ts';

/**
 * The preview site of each pull request, from provisioning to teardown, in the append's transaction. Its rows are
 * kept when the integration is deleted: its previews' teardown (a reactor's) reads which are live.
 */
export const gitPreviewsProjector = defineProjector<
  GitPreviewProvisioning | GitPreviewProvisioned | GitPreviewRefreshed | GitPreviewTornDown
>({
  name: 'git-previews',
  version: 1,
  mode: 'inline',
  tables: ['git_previews'],
  handles: ['GitPreviewProvisioning', 'GitPreviewProvisioned', 'GitPreviewRefreshed', 'GitPreviewTornDown'],
  createTables: async (db, t) => {
    const previews = t('git_previews');
    await sql`
      create table ${sql.table(previews)} (
        site_id text not null,
        integration_id text not null,
        number integer not null,
        preview_site_id text not null,
        state text not null,
        head_sha text,
        copied integer not null default 0,
        intents jsonb,
        reason text,
        started_at timestamptz not null,
        updated_at timestamptz not null,
        primary key (site_id, integration_id, number)
      )`.execute(db);
    await sql`create index ${sql.raw(`${previews}_live`)} on ${sql.table(previews)} (state, started_at)`.execute(db);
  },
  apply: async (trx, e) => {
    const d = e.data;
    if (e.type === 'GitPreviewProvisioning') {
      const row = {
        preview_site_id: d.previewSiteId,
        state: 'provisioning',
        head_sha: null,
        copied: 0,
        intents: null,
        reason: null,
        started_at: d.at,
        updated_at: d.at,
      };
      await trx
        .insertInto('git_previews')
        .values({ site_id: e.siteId, integration_id: d.integrationId, number: d.number, ...row })
        .onConflict((oc) => oc.columns(['site_id', 'integration_id', 'number']).doUpdateSet(row))
        .execute();
      return;
    }
    await trx
      .updateTable('git_previews')
      .set({
        ...(e.type === 'GitPreviewTornDown'
          ? { state: 'torn_down', reason: e.data.reason }
          : { state: 'live', head_sha: e.data.headSha, intents: JSON.stringify(e.data.intents) }),
        ...(e.type === 'GitPreviewProvisioned' ? { copied: e.data.copied } : {}),
        updated_at: d.at,
      })
      .where('site_id', '=', e.siteId)
      .where('integration_id', '=', d.integrationId)
      .where('number', '=', d.number)
      .where('preview_site_id', '=', d.previewSiteId)
      .execute();
  },
});
