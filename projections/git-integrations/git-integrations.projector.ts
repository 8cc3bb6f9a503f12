import { sql } from 'kysely';
import { defineProjector } from '../../src/kernel/es/projector.ts';
import {
  GIT_ACTIVITY_EVENT_TYPES,
  GIT_INTEGRATION_EVENT_TYPES,
  GITOPS_EVENT_TYPES,
  GIT_PREVIEW_EVENT_TYPES,
  type GitActivityEvent,
  type GitPreviewEvent,
  type GitopsEvent,
  type GitDeliveryReceived,
  type GitIntegrationEvent,
} from '../../src/contracts/git/git.events.ts';

const ACTIVITY_TABLES = [
  'git_deliveries',
  'git_pull_requests',
  'git_ci_runs',
  'git_content_intents',
  'git_provenance',
] as const;

/**
 * Each site's git integrations (no secrets), the deliveries their receivers recorded, and the pull requests and CI
 * runs processing found in them, in the append's transaction.
 */
export const gitIntegrationsProjector = defineProjector<
  GitIntegrationEvent | GitDeliveryReceived | GitActivityEvent | GitopsEvent | GitPreviewEvent
>({
  name: 'git-integrations',
  version: 3,
  mode: 'inline',
  tables: ['git_integrations', ...ACTIVITY_TABLES, 'git_previews'],
  handles: [
    ...GIT_INTEGRATION_EVENT_TYPES,
    'GitDeliveryReceived',
    ...GIT_ACTIVITY_EVENT_TYPES,
    ...GITOPS_EVENT_TYPES,
    ...GIT_PREVIEW_EVENT_TYPES,
  ],
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
    // Kept when the integration is deleted: its previews' teardown (a reactor's) reads which are live.
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
        await trx
          .deleteFrom('git_integrations')
          .where('site_id', '=', e.siteId)
          .where('integration_id', '=', e.data.integrationId)
          .execute();
        for (const table of ACTIVITY_TABLES)
          await trx
            .deleteFrom(table)
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
      case 'GitPullRequestObserved': {
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
        return;
      }
      case 'GitCiRunObserved': {
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
        return;
      }
      case 'git_ci_failed':
        return;
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
      case 'GitopsSynced': {
        // Which commit set which field: the last sync that wrote a field is its provenance.
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
        return;
      }
      case 'GitPreviewProvisioning': {
        const d = e.data;
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
      case 'GitPreviewProvisioned':
      case 'GitPreviewRefreshed':
      case 'GitPreviewTornDown': {
        const d = e.data;
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
        return;
      }
      case 'GitPreviewRefused':
        return;
    }
  },
});
