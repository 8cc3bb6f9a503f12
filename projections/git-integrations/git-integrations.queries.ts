import { sql, type Selectable } from 'kysely';
import type { Db, DB } from '../../src/kernel/db/database.ts';
import type { GitAuthMethod, GitHubApp, GitProvider, SyncConfig } from '../../src/contracts/git/git.events.ts';

/** An integration as the list shows it (the receiver's address is the slice's to add). */
export interface GitIntegrationRow {
  id: string;
  provider: GitProvider;
  repository: string;
  baseUrl: string | null;
  authMethod: GitAuthMethod;
  hasToken: boolean;
  app: GitHubApp | null;
  syncConfig: SyncConfig;
  createdAt: string;
  updatedAt: string;
}

const iso = (d: Date | string) => new Date(d).toISOString();

/** A page of a list: its rows (mapped) and how many rows the list has in all. */
async function pageOf<R, T>(
  rows: Promise<R[]>,
  count: Promise<{ n: string }>,
  map: (r: R) => T,
): Promise<{ rows: T[]; total: number }> {
  const [page, all] = await Promise.all([rows, count]);
  return { rows: page.map(map), total: Number(all.n) };
}

/** The site's integrations, oldest first. */
export async function listIntegrations(db: Db, siteId: string): Promise<GitIntegrationRow[]> {
  const rows = await db
    .selectFrom('git_integrations')
    .selectAll()
    .where('site_id', '=', siteId)
    .orderBy('created_at')
    .orderBy('integration_id')
    .execute();
  return rows.map((r) => ({
    id: r.integration_id,
    provider: r.provider as GitProvider,
    repository: r.repository,
    baseUrl: r.base_url,
    authMethod: r.auth_method as GitAuthMethod,
    hasToken: r.has_token,
    app: r.app ? { appId: r.app.appId, installationId: r.app.installationId } : null,
    syncConfig: r.sync_config,
    createdAt: iso(r.created_at),
    updatedAt: iso(r.updated_at),
  }));
}

/** A recorded delivery. */
export interface GitDeliveryRow {
  provider: GitProvider;
  deliveryId: string;
  event: string;
  receivedAt: string;
}

/** An integration's recorded deliveries, newest first, and how many there are. */
export async function listDeliveries(
  db: Db,
  siteId: string,
  integrationId: string,
  page: { limit: number; offset: number },
): Promise<{ rows: GitDeliveryRow[]; total: number }> {
  const base = db
    .selectFrom('git_deliveries')
    .where('site_id', '=', siteId)
    .where('integration_id', '=', integrationId);
  return pageOf(
    base.selectAll().orderBy('seq', 'desc').limit(page.limit).offset(page.offset).execute(),
    base.select((eb) => eb.fn.countAll<string>().as('n')).executeTakeFirstOrThrow(),
    (r) => ({
      provider: r.provider as GitProvider,
      deliveryId: r.delivery_id,
      event: r.event,
      receivedAt: iso(r.received_at),
    }),
  );
}

/** A pull request (merge request) as `/pull-requests` shows it. */
export interface GitPullRequestRow {
  integrationId: string;
  number: number;
  title: string;
  state: 'open' | 'closed' | 'merged';
  action: string;
  headRef: string;
  headSha: string;
  baseRef: string;
  url: string | null;
  updatedAt: string;
}

/** A CI run as `/ci` shows it. */
export interface GitCiRunRow {
  integrationId: string;
  source: 'check_run' | 'status' | 'pipeline';
  runId: string;
  name: string;
  sha: string;
  ref: string | null;
  state: 'queued' | 'running' | 'success' | 'failure' | 'cancelled' | 'skipped';
  url: string | null;
  updatedAt: string;
}

type Page = { limit: number; offset: number };

/** The site's pull requests, most recently changed first, optionally of one integration or state. */
export async function listPullRequests(
  db: Db,
  siteId: string,
  q: Page & { integrationId?: string | undefined; state?: string | undefined },
): Promise<{ rows: GitPullRequestRow[]; total: number }> {
  let base = db.selectFrom('git_pull_requests').where('site_id', '=', siteId);
  if (q.integrationId !== undefined) base = base.where('integration_id', '=', q.integrationId);
  if (q.state !== undefined) base = base.where('state', '=', q.state);
  return pageOf(
    base.selectAll().orderBy('seq', 'desc').limit(q.limit).offset(q.offset).execute(),
    base.select((eb) => eb.fn.countAll<string>().as('n')).executeTakeFirstOrThrow(),
    (r) => ({
      integrationId: r.integration_id,
      number: r.number,
      title: r.title,
      state: r.state as GitPullRequestRow['state'],
      action: r.action,
      headRef: r.head_ref,
      headSha: r.head_sha,
      baseRef: r.base_ref,
      url: r.url,
      updatedAt: iso(r.updated_at),
    }),
  );
}

/** The site's CI runs, most recently changed first, optionally of one integration, state, commit or branch. */
export async function listCiRuns(
  db: Db,
  siteId: string,
  q: Page & {
    integrationId?: string | undefined;
    state?: string | undefined;
    sha?: string | undefined;
    ref?: string | undefined;
  },
): Promise<{ rows: GitCiRunRow[]; total: number }> {
  let base = db.selectFrom('git_ci_runs').where('site_id', '=', siteId);
  if (q.integrationId !== undefined) base = base.where('integration_id', '=', q.integrationId);
  if (q.state !== undefined) base = base.where('state', '=', q.state);
  if (q.sha !== undefined) base = base.where('sha', '=', q.sha);
  if (q.ref !== undefined) base = base.where('ref', '=', q.ref);
  return pageOf(
    base.selectAll().orderBy('seq', 'desc').limit(q.limit).offset(q.offset).execute(),
    base.select((eb) => eb.fn.countAll<string>().as('n')).executeTakeFirstOrThrow(),
    (r) => ({
      integrationId: r.integration_id,
      source: r.source as GitCiRunRow['source'],
      runId: r.run_id,
      name: r.name,
      sha: r.sha,
      ref: r.ref,
      state: r.state as GitCiRunRow['state'],
      url: r.url,
      updatedAt: iso(r.updated_at),
    }),
  );
}

/** A content intent the integration recorded (what the drift scan calls extra once the repository drops it). */
export interface GitIntentRow {
  collection: string;
  itemId: string;
  path: string;
  sha: string;
}

/** The integration's recorded content intents. */
export async function listIntents(db: Db, siteId: string, integrationId: string): Promise<GitIntentRow[]> {
  const rows = await db
    .selectFrom('git_content_intents')
    .select(['collection', 'item_id', 'path', 'sha'])
    .where('site_id', '=', siteId)
    .where('integration_id', '=', integrationId)
    .orderBy('collection')
    .orderBy('item_id')
    .execute();
  return rows.map((r) => ({ collection: r.collection, itemId: r.item_id, path: r.path, sha: r.sha }));
}

/** A field's provenance: the commit, file and integration that last set it. */
export interface GitProvenanceRow {
  collection: string;
  itemId: string;
  field: string;
  integrationId: string;
  sha: string;
  path: string;
  setAt: string;
}

/** The site's provenance rows, by collection, item and field, optionally narrowed. */
export async function listProvenance(
  db: Db,
  siteId: string,
  q: Page & {
    collection?: string | undefined;
    itemId?: string | undefined;
    field?: string | undefined;
    sha?: string | undefined;
    integrationId?: string | undefined;
  },
): Promise<{ rows: GitProvenanceRow[]; total: number }> {
  let base = db.selectFrom('git_provenance').where('site_id', '=', siteId);
  if (q.collection !== undefined) base = base.where('collection', '=', q.collection);
  if (q.itemId !== undefined) base = base.where('item_id', '=', q.itemId);
  if (q.field !== undefined) base = base.where('field', '=', q.field);
  if (q.sha !== undefined) base = base.where('sha', '=', q.sha);
  if (q.integrationId !== undefined) base = base.where('integration_id', '=', q.integrationId);
  return pageOf(
    base
      .selectAll()
      .orderBy('collection')
      .orderBy('item_id')
      .orderBy('field')
      .limit(q.limit)
      .offset(q.offset)
      .execute(),
    base.select((eb) => eb.fn.countAll<string>().as('n')).executeTakeFirstOrThrow(),
    (r) => ({
      collection: r.collection,
      itemId: r.item_id,
      field: r.field,
      integrationId: r.integration_id,
      sha: r.sha,
      path: r.path,
      setAt: iso(r.set_at),
    }),
  );
}

/** A pull request's preview site as `/previews` shows it. */
export interface GitPreviewRow {
  integrationId: string;
  number: number;
  siteId: string;
  state: 'provisioning' | 'live' | 'torn_down';
  headSha: string | null;
  copied: number;
  intents: { applied: number; refused: number; error: string | null } | null;
  reason: string | null;
  startedAt: string;
  updatedAt: string;
}

/** The site's preview sites, newest first. */
export async function listPreviews(
  db: Db,
  siteId: string,
  q: Page & { integrationId?: string | undefined; state?: string | undefined },
): Promise<{ rows: GitPreviewRow[]; total: number }> {
  let base = db.selectFrom('git_previews').where('site_id', '=', siteId);
  if (q.integrationId !== undefined) base = base.where('integration_id', '=', q.integrationId);
  if (q.state !== undefined) base = base.where('state', '=', q.state);
  return pageOf(
    base.selectAll().orderBy('started_at', 'desc').orderBy('number', 'desc').limit(q.limit).offset(q.offset).execute(),
    base.select((eb) => eb.fn.countAll<string>().as('n')).executeTakeFirstOrThrow(),
    (r) => ({
      integrationId: r.integration_id,
      number: r.number,
      siteId: r.preview_site_id,
      state: r.state as GitPreviewRow['state'],
      headSha: r.head_sha,
      copied: r.copied,
      intents: r.intents,
      reason: r.reason,
      startedAt: iso(r.started_at),
      updatedAt: iso(r.updated_at),
    }),
  );
}

/** The integration's previews that are not torn down. */
export async function livePreviewsOf(
  db: Db,
  siteId: string,
  integrationId: string,
): Promise<{ number: number; siteId: string }[]> {
  const rows = await db
    .selectFrom('git_previews')
    .select(['number', 'preview_site_id'])
    .where('site_id', '=', siteId)
    .where('integration_id', '=', integrationId)
    .where('state', '!=', 'torn_down')
    .execute();
  return rows.map((r) => ({ number: r.number, siteId: r.preview_site_id }));
}

/**
 * Previews, of every site, older than their integration's `previewTtlHours` (read as the system: the TTL cleanup
 * is one loop for the instance). A preview whose integration is gone is torn down by the integration's deletion.
 */
export async function duePreviews(
  db: Db,
  now: Date,
): Promise<{ baseSiteId: string; integrationId: string; number: number; siteId: string }[]> {
  const r = await sql<
    Pick<Selectable<DB['git_previews']>, 'site_id' | 'integration_id' | 'number' | 'preview_site_id'>
  >`
    select p.site_id, p.integration_id, p.number, p.preview_site_id
    from git_previews p
    join git_integrations i on i.site_id = p.site_id and i.integration_id = p.integration_id
    where p.state = 'live'
      and p.started_at < ${now.toISOString()}::timestamptz
        - make_interval(hours => (i.sync_config ->> 'previewTtlHours')::int)
    order by p.started_at
    limit 100`.execute(db);
  return r.rows.map((x) => ({
    baseSiteId: x.site_id,
    integrationId: x.integration_id,
    number: x.number,
    siteId: x.preview_site_id,
  }));
}
