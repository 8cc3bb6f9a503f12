import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGitProvider, type GitProviderServer } from '../../../test/support/git-provider.ts';
import { createTestApp, type TestApp } from '../../../test/setup/app.ts';
import { apiClient, firstError } from '../../../test/setup/api.ts';
import { createUser } from '../../../test/setup/users.ts';
import { sendGithubDelivery } from '../../../test/support/git-deliveries.ts';
import { readAsSite } from '../../kernel/tenancy/site.ts';
import { createSite } from '../sites/index.ts';
import { GIT_DELIVERY_PROCESSOR } from './git.reactor.ts';
import { expirePreviews, GIT_PREVIEWER } from './git.previews.ts';
import { gitPreviewStream } from '../../contracts/git/git.events.ts';

/** Site main: its admin, an editor, articles and a page; site other: its own admin. A provider with a bare repo. */
let t: TestApp;
let admin: string;
let editor: string;
let otherAdmin: string;
let provider: GitProviderServer;
const { call, ok } = apiClient(
  () => t,
  () => admin,
);
const PASS = 'Git-preview-pass-1!';
const TOKEN = 'preview-provider-token';
const SECRET = 'a-webhook-secret-of-forty-characters-long';
const BASE = '/api/v1/integrations/git';
let hub: { id: string; path: string };

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

beforeAll(async () => {
  provider = await startGitProvider({ token: TOKEN });
  t = await createTestApp({ env: { SVC_GIT_ALLOW_PRIVATE: 'true' } });
  admin = await t.setup();
  await ok('POST', '/api/v1/sites', { id: 'other', name: 'Other' });
  editor = await createUser(t, 'ed@example.com', PASS, { main: 'editor' });
  otherAdmin = await createUser(t, 'oa@example.com', PASS, { other: 'admin' });
  await ok('POST', '/api/v1/collections', { name: 'articles' });
  await ok('POST', '/api/v1/fields/articles', { field: 'title', type: 'string' });
  for (const id of ['a1', 'a2', 'a3']) await ok('POST', '/api/v1/items/articles', { id, title: `Article ${id}` });
  await ok('PATCH', '/api/v1/items/articles/a2', { title: 'Article a2, edited' });
  await ok('POST', '/api/v1/pages', { slug: 'about', title: 'About us' });
  await provider.repo.commit('main', { 'content/base.json': '[]' });
  hub = await integrate(true);
}, 60_000);
afterAll(async () => {
  await t.close();
  await provider.close();
});

/** A signed pull_request delivery, then processing and the previewer. */
async function pullRequest(
  to: { path: string },
  number: number,
  over: {
    action: string;
    sha: string;
    state?: 'open' | 'closed';
    merged?: boolean;
    at: string;
    fork?: string;
    into?: string;
  },
) {
  const payload = {
    action: over.action,
    number,
    pull_request: {
      title: `Change ${String(number)}`,
      state: over.state ?? 'open',
      merged: over.merged ?? false,
      html_url: null,
      updated_at: over.at,
      head: { ref: `feature-${String(number)}`, sha: over.sha, repo: { full_name: over.fork ?? 'acme/site' } },
      base: { ref: over.into ?? 'main', repo: { full_name: 'acme/site' } },
    },
  };
  const res = await sendGithubDelivery(t, to.path, payload, { secret: SECRET });
  expect(res.statusCode, res.body).toBe(200);
  await t.deps.drainReactors(GIT_DELIVERY_PROCESSOR);
  await t.deps.drainReactors(GIT_PREVIEWER);
}

type Preview = {
  number: number;
  siteId: string;
  state: string;
  copied: number;
  headSha: string;
  reason: string | null;
  intents: { applied: number; refused: number; error: string | null };
};
const previews = async () => (await ok('GET', `${BASE}/previews?limit=200`)) as Preview[];
const titleOn = async (site: string, id: string, as = admin) => {
  const res = await call('GET', `/api/v1/items/articles/${id}`, undefined, { site, as });
  return res.statusCode === 200 ? (res.json().data.title as string) : res.statusCode;
};
const rowsOf = (site: string) =>
  readAsSite(t.deps.db, site, async (db) => {
    const items = await db
      .selectFrom('item_documents')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where('site_id', '=', site)
      .executeTakeFirstOrThrow();
    const pages = await db
      .selectFrom('pages')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where('site_id', '=', site)
      .executeTakeFirstOrThrow();
    return Number(items.n) + Number(pages.n);
  });

describe('preview sites', () => {
  it('are seeded from the base site’s events with the branch’s intents applied, for the base’s members', async () => {
    const head = await provider.repo.commit('feature-5', {
      'content/a.json': JSON.stringify([
        { collection: 'articles', id: 'a1', values: { title: 'Changed in the pull request' } },
        { collection: 'articles', id: 'p1', values: { title: 'New in the pull request' } },
      ]),
    });
    await pullRequest(hub, 5, { action: 'opened', sha: head, at: '2026-11-01T10:00:00Z' });
    const [p] = await previews();
    expect(p).toMatchObject({
      number: 5,
      siteId: 'main--pr-5',
      state: 'live',
      headSha: head,
      intents: { applied: 2, refused: 0, error: null },
    });
    expect(p!.copied).toBeGreaterThan(5);
    // The copy: items with their history (a2's edit), drafts and pages; then the branch's intents.
    expect(await titleOn('main--pr-5', 'a2')).toBe('Article a2, edited');
    expect(await titleOn('main--pr-5', 'a1')).toBe('Changed in the pull request');
    expect(await titleOn('main--pr-5', 'p1')).toBe('New in the pull request');
    const page = await call('GET', '/api/v1/pages', undefined, { site: 'main--pr-5' });
    expect(JSON.stringify(page.json().data)).toContain('About us');
    // The per-site streams are the preview's own: its schema takes a new field, its roles are its own stream.
    await ok('POST', '/api/v1/fields/articles', { field: 'summary', type: 'string' }, { site: 'main--pr-5' });
    const fieldsOnMain = (await ok('GET', '/api/v1/fields/articles')) as { field: string }[];
    expect(fieldsOnMain.map((f) => f.field)).not.toContain('summary');
    expect(await t.deps.store.streamVersion('main--pr-5/access/main')).toBeNull();
    expect(await t.deps.store.streamVersion('main--pr-5/schema/main')).toBeNull();
    expect(await t.deps.store.streamVersion('main--pr-5/schema/main--pr-5')).toBeGreaterThan(0);
    // A preview has no integrations of its own.
    const own = await call(
      'POST',
      BASE,
      { provider: 'github', repository: 'acme/x', authMethod: 'pat' },
      { site: 'main--pr-5' },
    );
    expect(own.statusCode).toBe(409);
    // The base site is untouched.
    expect(await titleOn('main', 'a1')).toBe('Article a1');
    expect(await titleOn('main', 'p1')).toBe(404);
    // The base's members, with their role there: the editor reads it; another site's admin does not.
    expect(await titleOn('main--pr-5', 'a1', editor)).toBe('Changed in the pull request');
    expect(await titleOn('main--pr-5', 'a1', otherAdmin)).toBe(403);
    // Checks that read a member's role read it as `roleOn` does: an admin checks the editor's rights on the preview,
    // and a release the editor makes there is published, the editor's standing read from the base.
    const editorId = (await ok('GET', '/api/v1/auth/me', undefined, { as: editor })).id as string;
    const checked = await call(
      'POST',
      '/api/v1/permissions/check',
      { collection: 'articles', action: 'update', userId: editorId },
      { site: 'main--pr-5' },
    );
    expect(checked.statusCode, checked.body).toBe(200);
    const created = await call(
      'POST',
      '/api/v1/releases',
      { name: 'On the preview', addItems: [{ collection: 'articles', itemId: 'a3', targetStatus: 'published' }] },
      { site: 'main--pr-5', as: editor },
    );
    expect(created.statusCode, created.body).toBe(201);
    // Published by the admin: the author's standing is read too (the release authority), as the base's editor.
    const published = await call('POST', `/api/v1/releases/${created.json().data.id as string}/publish`, undefined, {
      site: 'main--pr-5',
    });
    expect(published.json().data.status, published.body).toBe('published');
    expect(
      (await call('GET', `${BASE}/previews`, undefined, { as: otherAdmin, site: 'other' })).json().meta.total,
    ).toBe(0);
    expect((await call('GET', `${BASE}/previews`, undefined, { as: editor })).statusCode).toBe(403);
    expect((await call('GET', `${BASE}/previews`, undefined, { as: null })).statusCode).toBe(401);
  });
});

describe('preview sites', () => {
  it('are refreshed by new commits, and stay apart from later changes of the base', async () => {
    await ok('PATCH', '/api/v1/items/articles/a3', { title: 'Changed on main later' });
    const head = await provider.repo.commit('feature-5', {
      'content/a.json': JSON.stringify([{ collection: 'articles', id: 'p1', values: { title: 'Second commit' } }]),
    });
    await pullRequest(hub, 5, { action: 'synchronize', sha: head, at: '2026-11-01T11:00:00Z' });
    expect((await previews())[0]).toMatchObject({ siteId: 'main--pr-5', headSha: head, state: 'live' });
    expect(await titleOn('main--pr-5', 'p1')).toBe('Second commit');
    expect(await titleOn('main--pr-5', 'a3')).toBe('Article a3');
  });

  it("take the schema of the branch's manifest, never its webhooks or settings", async () => {
    const manifest = {
      version: 'svc.config@v1',
      collections: [{ name: 'notes', versioning: true }],
      fields: [{ collection: 'notes', field: 'body', type: 'text' }],
      webhooks: [
        {
          name: 'out',
          url: 'https://hooks.example.com/in',
          events: ['items.create'],
          collections: null,
          enabled: true,
        },
      ],
      settings: [{ key: 'public_registration', value: true }],
    };
    const head = await provider.repo.commit('feature-5', {
      'content/svc.config.json': JSON.stringify(manifest),
      'content/n.json': JSON.stringify({ collection: 'notes', id: 'n1', values: { body: 'From the branch' } }),
    });
    await pullRequest(hub, 5, { action: 'synchronize', sha: head, at: '2026-11-01T11:30:00Z' });
    expect((await previews())[0]).toMatchObject({ headSha: head, intents: { applied: 1, refused: 0, error: null } });
    const note = await call('GET', '/api/v1/items/notes/n1', undefined, { site: 'main--pr-5' });
    expect(note.json().data).toMatchObject({ body: 'From the branch' });
    expect((await call('GET', '/api/v1/collections/notes')).statusCode).toBe(404);
    const exported = (await ok('GET', '/api/v1/config/export', undefined, { site: 'main--pr-5' })) as {
      webhooks?: unknown[];
      settings?: { key: string; value: unknown }[];
    };
    expect(exported.webhooks ?? []).toEqual([]);
    expect(exported.settings?.find((x) => x.key === 'public_registration')?.value ?? false).toBe(false);
  });

  it('are torn down when the pull request closes: the site and every read-model row of it are gone', async () => {
    expect(await rowsOf('main--pr-5')).toBeGreaterThan(0);
    await pullRequest(hub, 5, {
      action: 'closed',
      sha: 'f'.repeat(40),
      state: 'closed',
      merged: true,
      at: '2026-11-01T12:00:00Z',
    });
    expect((await previews())[0]).toMatchObject({ siteId: 'main--pr-5', state: 'torn_down', reason: 'merged' });
    expect(await rowsOf('main--pr-5')).toBe(0);
    const res = await call('GET', '/api/v1/items/articles', undefined, { site: 'main--pr-5' });
    expect(res.statusCode).toBe(404);
    expect(await titleOn('main', 'a1')).toBe('Article a1');
    // Reopened: a new preview under a new id (a torn-down site's id is never given again).
    await pullRequest(hub, 5, { action: 'reopened', sha: 'e'.repeat(40), at: '2026-11-01T13:00:00Z' });
    expect((await previews())[0]).toMatchObject({ siteId: 'main--pr-5-2', state: 'live' });
  });

  it('are removed by the TTL cleanup once older than previewTtlHours', async () => {
    await pullRequest(hub, 6, { action: 'opened', sha: 'd'.repeat(40), at: '2026-11-02T10:00:00Z' });
    expect(await expirePreviews(t.deps)).toBe(0);
    const later = { now: () => new Date(Date.now() + 25 * 3600_000) };
    expect(await expirePreviews({ ...t.deps, clock: later })).toBe(2);
    const states = (await previews()).filter((p) => p.state !== 'torn_down');
    expect(states).toEqual([]);
    expect((await previews()).find((p) => p.number === 6)).toMatchObject({ reason: 'expired' });
  });
});

describe('preview sites', () => {
  it('are made again when a seed was cut short, and torn down with their integration', async () => {
    // What a crash in the middle of a seed leaves: the preview begun, its site made, nothing completed.
    const metadata = {
      siteId: 'main',
      actor: { type: 'system' as const, id: 'test' },
      correlationId: 'crash',
      causationId: null,
      requestId: null,
      occurredAt: new Date().toISOString(),
    };
    await t.deps.store.append(
      gitPreviewStream('main', hub.id, 7),
      [
        {
          type: 'GitPreviewProvisioning',
          data: {
            integrationId: hub.id,
            number: 7,
            previewSiteId: 'main--pr-7',
            generation: 1,
            at: metadata.occurredAt,
          },
          metadata,
        },
      ],
      { expectedVersion: 'no_stream' },
    );
    await createSite(
      t.deps,
      { metadata: { ...metadata, siteId: 'main--pr-7' } },
      {
        siteId: 'main--pr-7',
        name: 'half',
        createdBy: 'test',
        now: metadata.occurredAt,
      },
    );
    await pullRequest(hub, 7, { action: 'opened', sha: 'c'.repeat(40), at: '2026-11-03T10:00:00Z' });
    const live = (await previews()).filter((p) => p.number === 7);
    expect(live).toMatchObject([{ siteId: 'main--pr-7-2', state: 'live' }]);
    expect((await call('GET', '/api/v1/items/articles', undefined, { site: 'main--pr-7' })).statusCode).toBe(404);

    await ok('DELETE', `${BASE}/${hub.id}`);
    await t.deps.drainReactors(GIT_PREVIEWER);
    expect((await previews()).filter((p) => p.state !== 'torn_down')).toEqual([]);
    expect(await rowsOf('main--pr-7-2')).toBe(0);
  });
});

describe('preview sites', () => {
  it('are made only for pull requests of the repository into its branch, while on, and up to a number', async () => {
    const quiet = await integrate(false);
    await pullRequest(quiet, 8, { action: 'opened', sha: 'b'.repeat(40), at: '2026-11-04T10:00:00Z' });
    expect((await previews()).some((p) => p.number === 8)).toBe(false);
    const open = await integrate(true);
    // From a fork (anyone can open one), or into another branch: none.
    await pullRequest(open, 9, {
      action: 'opened',
      sha: 'b'.repeat(40),
      at: '2026-11-04T10:00:00Z',
      fork: 'mallory/site',
    });
    await pullRequest(open, 10, { action: 'opened', sha: 'b'.repeat(40), at: '2026-11-04T10:00:00Z', into: 'release' });
    expect((await previews()).some((p) => p.number === 9 || p.number === 10)).toBe(false);
    // Another integration's pull request of a number a preview already had: a free id, not the other's.
    await pullRequest(open, 5, { action: 'opened', sha: 'b'.repeat(40), at: '2026-11-04T10:00:00Z' });
    const fifth = (await previews()).find((p) => p.number === 5 && p.state === 'live');
    expect(fifth?.siteId).toBe('main--pr-5-3');
    // The cap of live previews per integration: past it, refused (recorded), none made.
    const capped = await createTestApp({ env: { SVC_GIT_MAX_PREVIEWS: '0' } });
    try {
      const token = await capped.setup();
      const made = await capped.call({
        method: 'POST',
        url: BASE,
        as: token,
        site: 'main',
        payload: {
          provider: 'github',
          repository: 'acme/site',
          authMethod: 'pat',
          webhookSecret: SECRET,
          sync_config: { preview: true },
        },
      });
      const path = new URL(made.json().data.webhookUrl as string).pathname;
      const previous = t;
      t = capped;
      try {
        await pullRequest({ path }, 1, { action: 'opened', sha: 'b'.repeat(40), at: '2026-11-04T10:00:00Z' });
      } finally {
        t = previous;
      }
      const listed = await capped.call({ method: 'GET', url: `${BASE}/previews`, as: token, site: 'main' });
      expect(listed.json().meta.total).toBe(0);
      const refused = [];
      for await (const e of capped.deps.store.readStream(gitPreviewStream('main', made.json().data.id as string, 1)))
        refused.push(e.type);
      expect(refused).toEqual(['GitPreviewRefused']);
    } finally {
      await capped.close();
    }
    const res = await call('POST', '/api/v1/sites', { id: 'main--pr-99', name: 'Squatter' });
    expect(res.statusCode).toBe(400);
    expect(firstError(res.body).code).toBe('VALIDATION_FAILED');
  });
});
