import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGitProvider, type GitProviderServer } from '../../../test/support/git-provider.ts';
import { createTestApp, type TestApp } from '../../../test/setup/app.ts';
import { apiClient, firstError } from '../../../test/setup/api.ts';
import { createUser } from '../../../test/setup/users.ts';

/** Site main: its admin, an editor, a `articles` collection; site other: its own admin. */
let t: TestApp;
let admin: string;
let editor: string;
let siteAdmin: string;
let otherAdmin: string;
let provider: GitProviderServer;
const { call, ok } = apiClient(
  () => t,
  () => admin,
);
const PASS = 'Git-gitops-pass-1!';
const TOKEN = 'glpat-or-ghp-test-token';
const SECRET = 'a-webhook-secret-of-forty-characters-long';
const BASE = '/api/v1/integrations/git';
let hub: string;
let lab: string;

const integrate = async (over: object) =>
  (
    await ok('POST', BASE, {
      repository: 'acme/site',
      authMethod: 'pat',
      token: TOKEN,
      webhookSecret: SECRET,
      sync_config: { branch: 'main', intentsPath: 'content' },
      ...over,
    })
  ).id as string;

const FILES = {
  'content/articles.yaml': `
- collection: articles
  id: a1
  values:
    title: Xin chào Hà Nội
    rank: 1
- collection: articles
  id: a2
  values: { title: Second, rank: 2 }
`,
  'content/nested/one.json': JSON.stringify({ collection: 'articles', id: 'a3', values: { title: 'Third' } }),
  'content/README.md': '# not an intent',
  'contentx/ignored.json': JSON.stringify({ collection: 'articles', id: 'x', values: { title: 'outside' } }),
};

beforeAll(async () => {
  provider = await startGitProvider({ token: TOKEN });
  t = await createTestApp({ env: { SVC_GIT_ALLOW_PRIVATE: 'true' } });
  admin = await t.setup();
  await ok('POST', '/api/v1/sites', { id: 'other', name: 'Other' });
  editor = await createUser(t, 'ed@example.com', PASS, { main: 'editor' });
  siteAdmin = await createUser(t, 'sa@example.com', PASS, { main: 'site_admin' });
  otherAdmin = await createUser(t, 'oa@example.com', PASS, { other: 'admin' });
  await ok('POST', '/api/v1/collections', { name: 'articles' });
  await ok('POST', '/api/v1/fields/articles', { field: 'title', type: 'string' });
  await ok('POST', '/api/v1/fields/articles', { field: 'rank', type: 'integer' });
  hub = await integrate({ provider: 'github', baseUrl: `${provider.url}/api/v3` });
  lab = await integrate({ provider: 'gitlab', baseUrl: provider.url });
}, 60_000);
afterAll(async () => {
  await t.close();
  await provider.close();
});

type Report = {
  sha: string;
  files: number;
  intents: number;
  drift: {
    missing: { collection: string; itemId: string; path: string }[];
    different: { itemId: string; fields: string[] }[];
    extra: { itemId: string }[];
    inSync: number;
  };
  applied: { itemId: string; action: string; fields: string[]; path: string }[];
  refused: { itemId: string; code: string }[];
  config: {
    path: string;
    operations: { resource: string; action: string; key: string }[];
    applied?: { created: number; updated: number; deleted: number };
  } | null;
};
const sync = async (id: string, body: object = {}) => (await ok('POST', `${BASE}/${id}/gitops/sync`, body)) as Report;
const article = async (id: string) => {
  const res = await call('GET', `/api/v1/items/articles/${id}`);
  return res.statusCode === 200 ? (res.json().data as Record<string, unknown>) : null;
};

describe('gitops sync', () => {
  let first: string;

  it('reports the drift of a dry run and applies nothing', async () => {
    first = await provider.repo.commit('main', FILES);
    const report = await sync(hub, { dryRun: true });
    expect(report).toMatchObject({ sha: first, files: 2, intents: 3, applied: [], refused: [] });
    expect(report.drift.missing.map((m) => [m.itemId, m.path])).toEqual([
      ['a1', 'content/articles.yaml'],
      ['a2', 'content/articles.yaml'],
      ['a3', 'content/nested/one.json'],
    ]);
    expect(await article('a1')).toBeNull();
    // The provider was called with the integration's token.
    expect(provider.requests.some((r) => r.auth?.includes(TOKEN))).toBe(true);
  });

  it('creates what is missing as actor gitops, with the commit as correlation id, and answers provenance', async () => {
    const report = await sync(hub);
    expect(report.applied.map((a) => [a.itemId, a.action])).toEqual([
      ['a1', 'created'],
      ['a2', 'created'],
      ['a3', 'created'],
    ]);
    expect(await article('a1')).toMatchObject({ title: 'Xin chào Hà Nội', rank: 1 });
    expect(await article('x')).toBeNull();
    const audit = (await ok('GET', '/api/v1/audit?type=ItemCreated&limit=10')) as {
      stream: string;
      actor: { type: string; id: string; onBehalfOf?: string };
      correlationId: string;
    }[];
    const created = audit.find((e) => e.stream.endsWith('/a1'));
    expect(created).toMatchObject({ actor: { type: 'gitops', id: hub }, correlationId: first });
    expect(created!.actor.onBehalfOf).toBeTruthy();

    const provenance = await ok('GET', `${BASE}/provenance?collection=articles&itemId=a1`);
    expect(provenance).toEqual([
      {
        collection: 'articles',
        itemId: 'a1',
        field: 'rank',
        integrationId: hub,
        sha: first,
        path: 'content/articles.yaml',
        setAt: expect.any(String),
      },
      expect.objectContaining({ field: 'title', sha: first }),
    ]);
    // Again at the same commit: everything in sync, nothing written.
    const again = await sync(hub);
    expect(again.drift.inSync).toBe(3);
    expect(again.applied).toEqual([]);
  });

  it('puts back what was changed by hand, applies a new commit, and reports what the repository dropped', async () => {
    await ok('PATCH', '/api/v1/items/articles/a1', { title: 'Edited by hand' });
    const reverted = await sync(hub);
    expect(reverted.drift.different).toEqual([expect.objectContaining({ itemId: 'a1', fields: ['title'] })]);
    expect(await article('a1')).toMatchObject({ title: 'Xin chào Hà Nội' });

    const second = await provider.repo.commit('main', {
      'content/articles.yaml': FILES['content/articles.yaml'].replace('rank: 2', 'rank: 20'),
    });
    const report = await sync(hub);
    expect(report.sha).toBe(second);
    expect(report.applied).toEqual([expect.objectContaining({ itemId: 'a2', action: 'updated', fields: ['rank'] })]);
    // a3 is no longer declared: reported as extra, left as it is.
    expect(report.drift.extra).toEqual([expect.objectContaining({ itemId: 'a3' })]);
    expect(await article('a3')).toMatchObject({ title: 'Third' });
    const rank = (await ok('GET', `${BASE}/provenance?itemId=a2&field=rank`)) as { sha: string }[];
    expect(rank.map((r) => r.sha)).toEqual([second]);
    expect(((await ok('GET', `${BASE}/provenance?sha=${second}`)) as unknown[]).length).toBe(1);
  });
});

describe('gitops sync', () => {
  it('applies nothing when a file cannot be read as intents, and names every such file', async () => {
    await provider.repo.commit('main', {
      'content/articles.yaml': FILES['content/articles.yaml'].replace('Second', 'Changed'),
      'content/broken.yaml': 'collection: [unclosed',
      'content/proto.json': '{"collection":"articles","id":"p","values":{"__proto__":{"polluted":true}}}',
      'content/shape.json': JSON.stringify({ collection: 'articles', values: {} }),
      'content/dup.json': JSON.stringify({ collection: 'articles', id: 'a1', values: { title: 'twice' } }),
      'content/bomb.yaml': `a: &a [x, x, x, x, x, x, x, x, x, x]\n${Array.from({ length: 120 }, (_, i) => `k${String(i)}: *a`).join('\n')}\n`,
    });
    const res = await call('POST', `${BASE}/${hub}/gitops/sync`, {});
    expect(res.statusCode, res.body).toBe(422);
    const error = firstError(res.body);
    expect(error.code).toBe('GIT_INTENTS_INVALID');
    const files = (error.extensions.files as { path: string }[]).map((f) => f.path).sort();
    expect(files).toEqual([
      'content/bomb.yaml',
      'content/broken.yaml',
      'content/dup.json',
      'content/proto.json',
      'content/shape.json',
    ]);
    expect(await article('a2')).toMatchObject({ title: 'Second' });
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('reports an intent the item commands refuse and applies the others', async () => {
    await provider.repo.commit('main', {
      'content/articles.yaml': FILES['content/articles.yaml'].replace('rank: 1', 'rank: not-a-number'),
      'content/more.json': JSON.stringify([
        { collection: 'articles', id: 'a4', values: { title: 'Fourth' } },
        { collection: 'nowhere', id: 'n1', values: { title: 'No such collection' } },
      ]),
    });
    const report = await sync(hub);
    expect(report.refused.map((r) => [r.itemId, r.code]).sort()).toEqual([
      ['a1', 'VALIDATION_FAILED'],
      ['n1', 'NOT_FOUND'],
    ]);
    expect(report.applied.map((a) => a.itemId)).toContain('a4');
    expect(await article('a4')).toMatchObject({ title: 'Fourth' });
    expect(await article('a1')).toMatchObject({ rank: 1 });
  });

  it('declares pages too, by slug', async () => {
    const files = {
      'content/pages.yaml': 'page:\n  slug: about/team\n  title: Our team\n',
      'content/articles.yaml': FILES['content/articles.yaml'],
    };
    await provider.repo.commit('main', files);
    const report = await sync(hub);
    expect(report.applied).toEqual([expect.objectContaining({ itemId: 'about/team', action: 'created' })]);
    const listed = (await ok('GET', '/api/v1/pages?limit=200')) as { slug: string; title: string; status: string }[];
    expect(listed.find((p) => p.slug === 'about/team')).toMatchObject({ title: 'Our team', status: 'published' });
    const sha = await provider.repo.commit('main', {
      ...files,
      'content/pages.yaml': 'page:\n  slug: about/team\n  title: The team\n',
    });
    const again = await sync(hub);
    expect(again.drift.different).toEqual([expect.objectContaining({ itemId: 'about/team', fields: ['title'] })]);
    const after = (await ok('GET', '/api/v1/pages?limit=200')) as { slug: string; title: string }[];
    expect(after.find((p) => p.slug === 'about/team')?.title).toBe('The team');
    expect(await ok('GET', `${BASE}/provenance?collection=@page&itemId=about/team&field=title`)).toEqual([
      expect.objectContaining({ sha, path: 'content/pages.yaml' }),
    ]);
    // A page that does not fit the page rules (a slug with a climb) refuses the files.
    await provider.repo.commit('main', { ...files, 'content/bad.json': '{"page":{"slug":"../x","title":"x"}}' });
    const bad = await call('POST', `${BASE}/${hub}/gitops/sync`, {});
    expect(bad.statusCode).toBe(422);
    expect(firstError(bad.body).extensions.files).toEqual([expect.objectContaining({ path: 'content/bad.json' })]);
  });
});

describe('gitops sync', () => {
  it("applies the repository's configuration manifest first, as an administrator's merge import", async () => {
    const manifest = {
      version: 'svc.config@v1',
      collections: [{ name: 'events', versioning: true }],
      fields: [{ collection: 'events', field: 'name', type: 'string' }],
    };
    const files = {
      'content/svc.config.json': JSON.stringify(manifest),
      'content/events.yaml': 'collection: events\nid: e1\nvalues:\n  name: Launch\n',
    };
    await provider.repo.commit('main', files);
    const dry = await sync(hub, { dryRun: true });
    expect(dry.config).toMatchObject({ path: 'content/svc.config.json' });
    expect(dry.config!.operations.map((o) => `${o.resource} ${o.action} ${o.key}`)).toEqual([
      'collections create events',
      'fields create events.name',
    ]);
    expect(dry.config!.applied).toBeUndefined();
    expect((await call('GET', '/api/v1/collections/events')).statusCode).toBe(404);
    // A site admin who is not the site's `admin` may not import configuration, from a repository either.
    const refused = await call('POST', `${BASE}/${hub}/gitops/sync`, {}, { as: siteAdmin });
    expect(refused.statusCode, refused.body).toBe(403);
    expect((await call('GET', '/api/v1/collections/events')).statusCode).toBe(404);

    const report = await sync(hub);
    expect(report.config!.applied).toEqual({ created: 2, updated: 0, deleted: 0 });
    expect(report.applied).toEqual([
      expect.objectContaining({ collection: 'events', itemId: 'e1', action: 'created' }),
    ]);
    const e1 = (await ok('GET', '/api/v1/items/events/e1')) as Record<string, unknown>;
    expect(e1.name).toBe('Launch');
    // Merge: the site's own collections, absent from the manifest, stay; a second sync changes nothing.
    expect((await call('GET', '/api/v1/collections/articles')).statusCode).toBe(200);
    expect((await sync(hub)).config!.applied).toEqual({ created: 0, updated: 0, deleted: 0 });

    // A manifest the import refuses, or one that cannot be read, applies nothing at all.
    await provider.repo.commit('main', {
      ...files,
      'content/svc.config.json': JSON.stringify({
        ...manifest,
        fields: [{ collection: 'nowhere', field: 'x', type: 'string' }],
      }),
      'content/events.yaml': 'collection: events\nid: e2\nvalues:\n  name: Second\n',
    });
    const bad = await call('POST', `${BASE}/${hub}/gitops/sync`, {});
    expect(bad.statusCode, bad.body).toBe(422);
    expect((await call('GET', '/api/v1/items/events/e2')).statusCode).toBe(404);
    await provider.repo.commit('main', {
      'content/events.yaml': files['content/events.yaml'],
      'content/svc.config.yaml': 'version: svc.config@v1\n__proto__: { polluted: true }\n',
    });
    const unsafe = await call('POST', `${BASE}/${hub}/gitops/sync`, {});
    expect(unsafe.statusCode).toBe(422);
    expect(firstError(unsafe.body).code).toBe('GIT_INTENTS_INVALID');
    expect(firstError(unsafe.body).extensions.files).toEqual([
      { path: 'content/svc.config.yaml', problem: expect.stringContaining('__proto__') as string },
    ]);
    // Two manifests: which one holds is not guessed.
    await provider.repo.commit('main', { ...files, 'content/svc.config.yml': 'version: svc.config@v1\n' });
    const two = await call('POST', `${BASE}/${hub}/gitops/sync`, {});
    expect(firstError(two.body).extensions.files).toEqual([
      { path: 'content/svc.config.yml', problem: 'a second manifest beside content/svc.config.json' },
    ]);
  });
});

describe('gitops sync', () => {
  it('reads a GitLab repository alike', async () => {
    await provider.repo.commit('main', {
      'content/gl.yml': 'collection: articles\nid: g1\nvalues:\n  title: From GitLab\n',
    });
    const report = await sync(lab);
    expect(report.applied).toEqual([expect.objectContaining({ itemId: 'g1', action: 'created' })]);
    expect(await article('g1')).toMatchObject({ title: 'From GitLab' });
  });

  it('answers a missing token, an unknown branch and an unreachable provider precisely', async () => {
    const tokenless = await integrate({ provider: 'github', baseUrl: `${provider.url}/api/v3`, token: undefined });
    let res = await call('POST', `${BASE}/${tokenless}/gitops/sync`, {});
    expect(res.statusCode).toBe(409);
    expect(firstError(res.body).code).toBe('GIT_TOKEN_MISSING');
    const branchless = await integrate({
      provider: 'github',
      baseUrl: `${provider.url}/api/v3`,
      sync_config: { branch: 'no-such-branch' },
    });
    res = await call('POST', `${BASE}/${branchless}/gitops/sync`, {});
    expect(res.statusCode).toBe(422);
    expect(firstError(res.body).code).toBe('GIT_REF_NOT_FOUND');
    const wrongToken = await integrate({ provider: 'gitlab', baseUrl: provider.url, token: 'wrong' });
    res = await call('POST', `${BASE}/${wrongToken}/gitops/sync`, {});
    expect(res.statusCode).toBe(502);
    expect(firstError(res.body).code).toBe('GIT_PROVIDER_FAILED');
  });

  it('is for the site admins of the integration’s own site', async () => {
    const path = `${BASE}/${hub}/gitops/sync`;
    expect((await call('POST', path, {}, { as: null })).statusCode).toBe(401);
    expect((await call('POST', path, {}, { as: editor })).statusCode).toBe(403);
    expect((await call('POST', path, {}, { as: otherAdmin })).statusCode).toBe(403);
    expect((await call('POST', path, {}, { as: otherAdmin, site: 'other' })).statusCode).toBe(404);
    const theirs = await call('GET', `${BASE}/provenance`, undefined, { as: otherAdmin, site: 'other' });
    expect(theirs.json().meta.total).toBe(0);
    expect((await call('GET', `${BASE}/provenance`, undefined, { as: editor })).statusCode).toBe(403);
    for (const body of [{ dryRun: 'yes' }, { extra: 1 }, []]) {
      const res = await call('POST', path, body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
    }
    const bad = await call('GET', `${BASE}/provenance?sha=not-hex`);
    expect(bad.statusCode).toBe(400);
  });
});
