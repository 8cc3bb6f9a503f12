import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ProjectionEngine } from '../../src/platform/es/projection-engine.ts';
import { GIT_PREVIEWER } from '../../src/features/git/git.previews.ts';
import { GIT_DELIVERY_PROCESSOR } from '../../src/features/git/git.reactor.ts';
import { createTestApp, type TestApp } from '../../test/setup/app.ts';
import { apiClient } from '../../test/setup/api.ts';
import { sendGithubDelivery } from '../../test/support/git-deliveries.ts';
import { startGitProvider, type GitProviderServer } from '../../test/support/git-provider.ts';
import { gitProjectors } from './index.ts';

/**
 * The git read model is the log's: each of its tables, rebuilt from the log by its own projector, equals what live
 * projection built; and a database that holds the tables without a checkpoint of some projector gets that projector
 * by a rebuild, with the same columns, indexes and rows.
 */
let t: TestApp;
let admin: string;
let provider: GitProviderServer;
const { ok } = apiClient(
  () => t,
  () => admin,
);
const TOKEN = 'read-model-provider-token';
const SECRET = 'a-webhook-secret-of-forty-characters-long';
const BASE = '/api/v1/integrations/git';

const PROJECTORS = gitProjectors;
/** The projector of the integrations themselves (kept its name and version when the read model was split). */
const INTEGRATIONS = PROJECTORS.find((p) => p.name === 'git-integrations')!;
/** Each table with the order of its primary key. */
const TABLES: Record<string, string> = {
  git_integrations: 'site_id, integration_id',
  git_deliveries: 'site_id, integration_id, delivery_key',
  git_pull_requests: 'site_id, integration_id, number',
  git_ci_runs: 'site_id, integration_id, source, run_id',
  git_content_intents: 'site_id, integration_id, collection, item_id',
  git_provenance: 'site_id, collection, item_id, field',
  git_previews: 'site_id, integration_id, number',
};

const rows = async (table: string) => {
  const r = await sql<
    Record<string, unknown>
  >`select * from ${sql.table(table)} order by ${sql.raw(TABLES[table]!)}`.execute(t.deps.database.owner);
  return JSON.parse(JSON.stringify(r.rows)) as unknown[];
};
const dump = async (tables: readonly string[]) => {
  const out: Record<string, unknown[]> = {};
  for (const table of tables) out[table] = await rows(table);
  return out;
};
/** Columns (name, type, nullability, default), indexes and row-level policies of the git tables. */
const shape = async () => {
  const names = Object.keys(TABLES);
  const columns = await sql<Record<string, unknown>>`
    select table_name, column_name, data_type, is_nullable, column_default from information_schema.columns
    where table_schema = current_schema() and table_name in (${sql.join(names)})
    order by table_name, ordinal_position`.execute(t.deps.database.owner);
  const indexes = await sql<Record<string, unknown>>`
    select tablename, indexname, indexdef from pg_indexes
    where schemaname = current_schema() and tablename in (${sql.join(names)})
    order by tablename, indexname`.execute(t.deps.database.owner);
  const policies = await sql<Record<string, unknown>>`
    select tablename, policyname, cmd, roles::text, qual, with_check from pg_policies
    where schemaname = current_schema() and tablename in (${sql.join(names)})
    order by tablename, policyname`.execute(t.deps.database.owner);
  return { columns: columns.rows, indexes: indexes.rows, policies: policies.rows };
};

const integrate = async (preview: boolean) => {
  const r = await ok('POST', BASE, {
    provider: 'github',
    repository: provider.repository,
    baseUrl: provider.githubApi,
    authMethod: 'pat',
    token: TOKEN,
    webhookSecret: SECRET,
    sync_config: { preview, branch: 'main', intentsPath: 'content', previewTtlHours: 24 },
  });
  return { id: r.id as string, path: new URL(r.webhookUrl as string).pathname };
};

async function deliver(path: string, payload: object, event = 'pull_request') {
  const res = await sendGithubDelivery(t, path, payload, { secret: SECRET, event });
  expect(res.statusCode, res.body).toBe(200);
  await t.deps.drainReactors(GIT_DELIVERY_PROCESSOR);
  await t.deps.drainReactors(GIT_PREVIEWER);
}

const pullRequest = (number: number, over: { action: string; sha: string; state?: string; at: string }) => ({
  action: over.action,
  number,
  pull_request: {
    title: `Change ${String(number)}`,
    state: over.state ?? 'open',
    merged: false,
    html_url: null,
    updated_at: over.at,
    head: { ref: `feature-${String(number)}`, sha: over.sha, repo: { full_name: 'acme/site' } },
    base: { ref: 'main', repo: { full_name: 'acme/site' } },
  },
});

const checkRun = (id: number, sha: string, conclusion: string, at: string) => ({
  action: 'completed',
  check_run: {
    id,
    name: 'build',
    head_sha: sha,
    status: 'completed',
    conclusion,
    html_url: null,
    started_at: '2026-11-01T10:00:00Z',
    completed_at: at,
    check_suite: { head_branch: 'main' },
  },
});

/** Every kind of row: integrations (one deleted), deliveries, pull requests, CI runs, intents, provenance, previews. */
beforeAll(async () => {
  provider = await startGitProvider({ token: TOKEN });
  t = await createTestApp({ env: { SVC_GIT_ALLOW_PRIVATE: 'true' } });
  admin = await t.setup();
  await ok('POST', '/api/v1/collections', { name: 'articles' });
  await ok('POST', '/api/v1/fields/articles', { field: 'title', type: 'string' });
  await provider.repo.commit('main', {
    'content/a.json': JSON.stringify([
      { collection: 'articles', id: 'a1', values: { title: 'First' } },
      { collection: 'articles', id: 'a2', values: { title: 'Second' } },
    ]),
  });
  const hub = await integrate(true);
  await ok('POST', `${BASE}/${hub.id}/gitops/sync`, {});
  await provider.repo.commit('main', {
    'content/a.json': JSON.stringify([{ collection: 'articles', id: 'a1', values: { title: 'First, again' } }]),
  });
  await ok('POST', `${BASE}/${hub.id}/gitops/sync`, {});
  const head = await provider.repo.commit('feature-5', {
    'content/a.json': JSON.stringify([{ collection: 'articles', id: 'a1', values: { title: 'In the pull request' } }]),
  });
  await deliver(hub.path, pullRequest(5, { action: 'opened', sha: head, at: '2026-11-01T10:00:00Z' }));
  await deliver(hub.path, pullRequest(6, { action: 'opened', sha: head, at: '2026-11-01T11:00:00Z' }));
  await deliver(hub.path, pullRequest(6, { action: 'closed', sha: head, state: 'closed', at: '2026-11-01T12:00:00Z' }));
  await deliver(hub.path, checkRun(101, head, 'success', '2026-11-01T10:05:00Z'), 'check_run');
  const gone = await integrate(false);
  await deliver(gone.path, pullRequest(7, { action: 'opened', sha: head, at: '2026-11-01T10:00:00Z' }));
  await ok('DELETE', `${BASE}/${gone.id}`);
}, 120_000);
afterAll(async () => {
  await t.close();
  await provider.close();
});

describe('the git read model', () => {
  it('has rows in every table', async () => {
    for (const table of Object.keys(TABLES)) expect((await rows(table)).length, table).toBeGreaterThan(0);
  });

  it.each(PROJECTORS.map((p) => [p.name, p] as const))(
    '%s rebuilt from the log equals its live projection',
    async (name, p) => {
      const live = await dump(p.tables);
      await t.deps.engine.rebuild(name);
      expect(await dump(p.tables)).toEqual(live);
    },
  );

  it('is completed at start by rebuilding only the projectors without a checkpoint, to the same tables', async () => {
    const before = { rows: await dump(Object.keys(TABLES)), shape: await shape() };
    const owner = t.deps.database.owner;
    const missing = PROJECTORS.filter((p) => p !== INTEGRATIONS).map((p) => p.name);
    await owner.deleteFrom('projection_state').where('name', 'in', missing).execute();
    // A projector with its checkpoint is not rebuilt: a row changed behind its back stays as it is.
    await sql`update git_integrations set repository = 'drifted'`.execute(owner);
    await new ProjectionEngine(owner, PROJECTORS, {
      events: t.deps.store,
      servingRole: t.deps.database.servingRole,
    }).setup();
    expect((await rows('git_integrations')).every((r) => (r as { repository: string }).repository === 'drifted')).toBe(
      true,
    );
    await t.deps.engine.rebuild(INTEGRATIONS.name);
    expect({ rows: await dump(Object.keys(TABLES)), shape: await shape() }).toEqual(before);
    const states = await owner.selectFrom('projection_state').select(['name', 'version', 'status']).execute();
    for (const p of PROJECTORS)
      expect(states.find((s) => s.name === p.name)).toEqual({ name: p.name, version: p.version, status: 'live' });
  });
});
