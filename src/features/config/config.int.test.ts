import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/setup/app.ts';
import { createUser } from '../../../test/setup/users.ts';

let t: TestApp;
let admin: string;
let siteAdmin: string;
type Method = 'GET' | 'POST' | 'PATCH' | 'DELETE' | 'PUT';

beforeAll(async () => {
  t = await createTestApp({ env: { SVC_WEBHOOK_ALLOW_PRIVATE: 'true' } });
  admin = await t.setup();
  for (const id of ['staging', 'prod', 'modes', 'other'])
    await t.call({ method: 'POST', url: '/api/v1/sites', as: admin, payload: { id, name: id } });
  siteAdmin = await createUser(t, 'sa@config.test', 'Site-admin-pass-1618!', { staging: 'site_admin' });
});
afterAll(() => t.close());

const call = (method: Method, url: string, payload?: unknown, site = 'staging', as = admin, headers = {}) =>
  t.call({ method, url, as, site, headers, ...(payload === undefined ? {} : { payload: payload as object }) });
const ok = async (method: Method, url: string, payload?: unknown, site = 'staging') => {
  const res = await call(method, url, payload, site);
  expect(res.statusCode, res.body).toBeLessThan(300);
  return res.json().data;
};
const exported = async (site: string, query = '') => {
  const m = await ok('GET', `/api/v1/config/export${query}`, undefined, site);
  const { exportedAt: _at, ...rest } = m;
  return rest;
};
/** A staging schema: two collections, fields of several kinds, an m2o and an m2m through a junction. */
async function buildStaging() {
  await ok('POST', '/api/v1/collections', { name: 'authors', displayName: 'Authors' });
  await ok('POST', '/api/v1/fields/authors', { field: 'name', type: 'string', required: true, nullable: false });
  await ok('POST', '/api/v1/collections', { name: 'articles', displayName: 'Articles', icon: 'article' });
  await ok('POST', '/api/v1/fields/articles', { field: 'title', type: 'string', required: true, nullable: false });
  await ok('POST', '/api/v1/fields/articles', { field: 'views', type: 'integer', default: 0 });
  await ok('POST', '/api/v1/fields/articles', { field: 'kind', type: 'enum', choices: ['news', 'opinion'] });
  await ok('POST', '/api/v1/fields/articles', { field: 'author', type: 'string' });
  await ok('POST', '/api/v1/fields/articles', { field: 'tags', type: 'json' });
  await ok('POST', '/api/v1/collections', { name: 'articles_tags' });
  await ok('POST', '/api/v1/fields/articles_tags', { field: 'articles_id', type: 'string' });
  await ok('POST', '/api/v1/fields/articles_tags', { field: 'authors_id', type: 'string' });
  await ok('POST', '/api/v1/relations', { kind: 'm2o', collection: 'articles', field: 'author', target: 'authors' });
  await ok('POST', '/api/v1/relations', {
    kind: 'm2m',
    collection: 'articles',
    field: 'tags',
    target: 'authors',
    junctionCollection: 'articles_tags',
    onDelete: 'cascade',
  });
  await ok('PATCH', '/api/v1/site', { settings: { default_save_action: 'stay' } });
}

describe('configuration as code', () => {
  it('exports a deterministic manifest: two exports of one state differ only in exportedAt', async () => {
    await buildStaging();
    const a = await ok('GET', '/api/v1/config/export');
    const b = await ok('GET', '/api/v1/config/export');
    expect(a.version).toBe('svc.config@v1');
    expect(a.exportedAt).toEqual(expect.any(String));
    expect(JSON.stringify({ ...a, exportedAt: 0 })).toBe(JSON.stringify({ ...b, exportedAt: 0 }));
    expect(a.collections.map((c: { name: string }) => c.name)).toEqual(['articles', 'articles_tags', 'authors']);
    expect(a.collections[0]).toMatchObject({ name: 'articles', label: 'Articles', versioning: true, icon: 'article' });
    expect(
      a.fields
        .filter((f: { collection: string }) => f.collection === 'articles')
        .map((f: { field: string }) => f.field),
    ).toEqual(['title', 'views', 'kind', 'author', 'tags']);
    expect(a.relations).toEqual([
      expect.objectContaining({ kind: 'm2o', collection: 'articles', field: 'author', target: 'authors' }),
      expect.objectContaining({ kind: 'm2m', collection: 'articles', field: 'tags', onDelete: 'cascade' }),
    ]);
    expect(a.relations[0]).not.toHaveProperty('id');
    expect(a.settings).toEqual([{ key: 'default_save_action', value: 'stay' }]);
    expect(a.managedScopes).toEqual(['articles', 'articles_tags', 'authors']);
    // The system collection (files) is not part of a site's configuration.
    expect(a.fields.some((f: { collection: string }) => f.collection === 'files')).toBe(false);
    const schemaOnly = await ok('GET', '/api/v1/config/export?scope=schema');
    expect(schemaOnly).not.toHaveProperty('settings');
    expect(schemaOnly).not.toHaveProperty('webhooks');
    const settingsOnly = await ok('GET', '/api/v1/config/export?scope=settings');
    expect(Object.keys(settingsOnly).sort()).toEqual(['exportedAt', 'settings', 'version']);
  });

  it('promotes staging to production: dry run, apply, the same export, and a second apply changes nothing', async () => {
    const manifest = await ok('GET', '/api/v1/config/export');
    const before = await exported('prod');
    const dry = await ok('POST', '/api/v1/config/import?dryRun=true&mode=merge', manifest, 'prod');
    expect(dry).toMatchObject({ valid: true, errors: [] });
    expect(dry.diff.collections).toEqual({ create: 3, update: 0, unchanged: 0, delete: 0 });
    expect(dry.diff.fields.create).toBe(manifest.fields.length);
    expect(dry.diff.relations.create).toBe(2);
    expect(dry.diff.settings.create).toBe(1);
    expect(dry.diff.risk).toBe('low');
    expect(dry).not.toHaveProperty('applied');
    expect(await exported('prod')).toEqual(before); // a dry run writes nothing

    const applied = await ok('POST', '/api/v1/config/import?mode=merge', manifest, 'prod');
    expect(applied.applied).toEqual({ created: 3 + manifest.fields.length + 2 + 1, updated: 0, deleted: 0 });
    expect(await exported('prod')).toEqual(await exported('staging'));
    const again = await ok('POST', '/api/v1/config/import?mode=replace-all', manifest, 'prod');
    expect(again.operations).toEqual([]);
    expect(again.applied).toEqual({ created: 0, updated: 0, deleted: 0 });
    expect(again.diff.fields.unchanged).toBe(manifest.fields.length);
    // The imported relations work: an m2o expands on prod.
    const author = await ok('POST', '/api/v1/items/authors', { name: 'Ada' }, 'prod');
    await ok('POST', '/api/v1/items/articles', { title: 'Hello', author: author.id }, 'prod');
    const list = await ok('GET', '/api/v1/items/articles?fields=title,author.name', undefined, 'prod');
    expect(list).toEqual([
      expect.objectContaining({ title: 'Hello', author: expect.objectContaining({ name: 'Ada' }) }),
    ]);
  });

  it('carries subjects and personal fields: the subject after the field it names, before the personal fields', async () => {
    await ok('POST', '/api/v1/sites', { id: 'pd-staging', name: 'pd-staging' });
    await ok('POST', '/api/v1/sites', { id: 'pd-prod', name: 'pd-prod' });
    await ok('POST', '/api/v1/collections', { name: 'tickets' }, 'pd-staging');
    await ok('POST', '/api/v1/fields/tickets', { field: 'owner', type: 'string' }, 'pd-staging');
    await ok('PATCH', '/api/v1/collections/tickets', { subject: { from: 'field', field: 'owner' } }, 'pd-staging');
    await ok(
      'POST',
      '/api/v1/fields/tickets',
      { field: 'phone', type: 'string', personal: true, erasedValue: '-' },
      'pd-staging',
    );
    await ok('POST', '/api/v1/collections', { name: 'leads', subject: { from: 'item' } }, 'pd-staging');
    await ok('POST', '/api/v1/fields/leads', { field: 'email', type: 'string', personal: true }, 'pd-staging');
    const manifest = await ok('GET', '/api/v1/config/export?scope=schema', undefined, 'pd-staging');
    expect(manifest.collections.find((c: { name: string }) => c.name === 'tickets').subject).toEqual({
      from: 'field',
      field: 'owner',
    });
    expect(manifest.fields.find((f: { field: string }) => f.field === 'phone')).toMatchObject({
      personal: true,
      erasedValue: '-',
    });
    await ok('POST', '/api/v1/config/import?mode=merge', manifest, 'pd-prod');
    expect(await exported('pd-prod', '?scope=schema')).toEqual(await exported('pd-staging', '?scope=schema'));
    const again = await ok('POST', '/api/v1/config/import?mode=merge&dryRun=true', manifest, 'pd-prod');
    expect(again.operations).toEqual([]);
    // Whether a field is personal never changes; removing the subject of a collection with personal fields neither.
    const flipped = {
      ...manifest,
      fields: manifest.fields.map((f: { field: string }) => (f.field === 'email' ? { ...f, personal: false } : f)),
    };
    const refused = await call('POST', '/api/v1/config/import?mode=merge&dryRun=true', flipped, 'pd-prod');
    expect(refused.statusCode, refused.body).toBe(422);
    expect(JSON.stringify(refused.json().errors)).toContain('personal');
  });

  it('records one SchemaChanged with the plan summary for an apply', async () => {
    const manifest = await ok('GET', '/api/v1/config/export?scope=schema');
    manifest.fields.push({ collection: 'authors', field: 'bio', type: 'text' });
    await ok('POST', '/api/v1/config/import?mode=merge', manifest, 'prod');
    const audit = await ok('GET', '/api/v1/audit?type=SchemaChanged&limit=1', undefined, 'prod');
    expect(audit[0].data).toMatchObject({
      change: 'plan.applied',
      summary: {
        source: 'config.import',
        mode: 'merge',
        created: 1,
        operations: [{ resource: 'fields', action: 'create', key: 'authors.bio', risk: 'low' }],
      },
    });
  });

  it('deletes by mode: merge never, replace-managed inside managedScopes, replace-all whatever is absent', async () => {
    const site = 'modes';
    const base = {
      version: 'svc.config@v1',
      collections: ['a', 'b', 'c'].map((name) => ({ name, versioning: true })),
      fields: ['a', 'b', 'c'].flatMap((collection) => [
        { collection, field: 'x', type: 'string' },
        { collection, field: 'y', type: 'string' },
      ]),
    };
    await ok('POST', '/api/v1/config/import', base, site);
    const smaller = {
      version: 'svc.config@v1',
      collections: [{ name: 'a', versioning: true }],
      fields: [{ collection: 'a', field: 'x', type: 'string' }],
      managedScopes: ['b'],
    };
    const merge = await ok('POST', '/api/v1/config/import?dryRun=true&mode=merge', smaller, site);
    expect(merge.diff.collections.delete + merge.diff.fields.delete).toBe(0);
    const managed = await ok('POST', '/api/v1/config/import?dryRun=true&mode=replace-managed', smaller, site);
    expect(managed.operations.filter((o: { action: string }) => o.action === 'delete')).toEqual([
      { resource: 'collections', action: 'delete', key: 'b', risk: 'medium' },
    ]);
    const all = await ok('POST', '/api/v1/config/import?dryRun=true&mode=replace-all', smaller, site);
    expect(
      all.operations.filter((o: { action: string }) => o.action === 'delete').map((o: { key: string }) => o.key),
    ).toEqual(['b', 'c', 'a.y']);
    expect(all.diff.risk).toBe('medium');
    await ok('POST', '/api/v1/config/import?mode=replace-all', smaller, site);
    expect((await exported(site)).collections.map((c: { name: string }) => c.name)).toEqual(['a']);
  });

  it('blocks dropping data and widening onDelete to cascade without allowDestructive', async () => {
    const manifest = await ok('GET', '/api/v1/config/export?scope=schema', undefined, 'prod');
    const withoutBio = { ...manifest, fields: manifest.fields.filter((f: { field: string }) => f.field !== 'bio') };
    // An empty field: medium, applied without the flag.
    const dry = await ok('POST', '/api/v1/config/import?dryRun=true&mode=replace-all', withoutBio, 'prod');
    expect(dry.operations).toEqual([{ resource: 'fields', action: 'delete', key: 'authors.bio', risk: 'medium' }]);
    // A field holding a value: high.
    const ada = (await ok('GET', '/api/v1/items/authors', undefined, 'prod'))[0];
    await ok('PATCH', `/api/v1/items/authors/${ada.id}`, { bio: 'Mathematician' }, 'prod');
    const risky = await ok('POST', '/api/v1/config/import?dryRun=true&mode=replace-all', withoutBio, 'prod');
    expect(risky.operations[0]).toMatchObject({ key: 'authors.bio', risk: 'high', reason: 'the field holds values' });
    expect(risky.diff.risk).toBe('high');
    const blocked = await call('POST', '/api/v1/config/import?mode=replace-all', withoutBio, 'prod');
    expect(blocked.statusCode).toBe(409);
    expect(blocked.json().errors[0]).toMatchObject({
      code: 'DESTRUCTIVE_BLOCKED',
      extensions: { operations: [expect.objectContaining({ key: 'authors.bio', risk: 'high' })] },
    });
    expect((await ok('GET', `/api/v1/items/authors/${ada.id}`, undefined, 'prod')).bio).toBe('Mathematician');
    // Widening an m2o's onDelete to cascade.
    const cascade = {
      ...manifest,
      relations: manifest.relations.map((r: { field: string }) =>
        r.field === 'author' ? { ...r, onDelete: 'cascade' } : r,
      ),
    };
    const widen = await call('POST', '/api/v1/config/import?mode=merge', cascade, 'prod');
    expect(widen.statusCode).toBe(409);
    expect(widen.json().errors[0].extensions.operations).toEqual([
      expect.objectContaining({ resource: 'relations', key: 'articles.author', changes: ['onDelete'] }),
    ]);
    const applied = await ok(
      'POST',
      '/api/v1/config/import?mode=replace-all&allowDestructive=true',
      withoutBio,
      'prod',
    );
    expect(applied.applied).toEqual({ created: 0, updated: 0, deleted: 1 });
    expect(await ok('GET', `/api/v1/items/authors/${ada.id}`, undefined, 'prod')).not.toHaveProperty('bio');
  });

  it('answers manifest errors with 422, each code with its path, and writes nothing', async () => {
    const before = await exported('prod');
    const cases: [unknown, string, string[]][] = [
      [{ version: 'svc.config@v2' }, 'UNSUPPORTED_MANIFEST_VERSION', ['version']],
      [{ collections: [] }, 'UNSUPPORTED_MANIFEST_VERSION', ['version']],
      [[1, 2], 'UNSUPPORTED_MANIFEST_VERSION', ['version']],
      [
        { version: 'svc.config@v1', fields: [{ collection: 'ghosts', field: 'x', type: 'string' }] },
        'DANGLING_REFERENCE',
        ['fields', '0', 'collection'],
      ],
      [
        {
          version: 'svc.config@v1',
          relations: [{ kind: 'm2o', collection: 'articles', field: 'nope', target: 'authors' }],
        },
        'DANGLING_REFERENCE',
        ['relations', '0', 'field'],
      ],
      [
        {
          version: 'svc.config@v1',
          relations: [{ kind: 'm2o', collection: 'articles', field: 'author', target: 'x' }],
        },
        'DANGLING_REFERENCE',
        ['relations', '0', 'target'],
      ],
      [
        {
          version: 'svc.config@v1',
          collections: [
            { name: 'dup', versioning: true },
            { name: 'dup', versioning: true },
          ],
        },
        'DUPLICATE_KEY',
        ['collections', '1'],
      ],
      [
        { version: 'svc.config@v1', collections: [{ name: 'Bad-Name', versioning: true }] },
        'VALIDATION_FAILED',
        ['collections', '0', 'name'],
      ],
      [
        { version: 'svc.config@v1', collections: [{ name: 'constructor', versioning: true }] },
        'VALIDATION_FAILED',
        ['collections', '0', 'name'],
      ],
      [
        { version: 'svc.config@v1', settings: [{ key: 'default_save_action', value: 'explode' }] },
        'VALIDATION_FAILED',
        ['settings', '0', 'value'],
      ],
      [{ version: 'svc.config@v1', surprise: 1 }, 'VALIDATION_FAILED', []],
      [
        { version: 'svc.config@v1', collections: [{ name: 'files', versioning: true }] },
        'VALIDATION_FAILED',
        ['collections', '0'],
      ],
    ];
    for (const [body, code, path] of cases) {
      const res = await call('POST', '/api/v1/config/import?mode=merge', body, 'prod');
      expect(res.statusCode, JSON.stringify(body)).toBe(422);
      const json = res.json();
      expect(json.errors[0].code, JSON.stringify(body)).toBe(code);
      expect(json.errors[0].path, JSON.stringify(body)).toEqual(path);
      expect(json.data).toMatchObject({ valid: false, errors: json.errors });
    }
    const many = {
      version: 'svc.config@v1',
      collections: [{ name: 'huge', versioning: true }],
      fields: Array.from({ length: 10_000 }, (_, i) => ({ collection: 'huge', field: `f${i}`, type: 'string' })),
    };
    const huge = await call('POST', '/api/v1/config/import?mode=merge', many, 'prod');
    expect(huge.statusCode).toBe(422);
    expect(huge.json().errors[0]).toMatchObject({ code: 'VALIDATION_FAILED', path: ['fields', '500'] });
    const notJson = await t.call({
      method: 'POST',
      url: '/api/v1/config/import',
      as: admin,
      site: 'prod',
      headers: { 'content-type': 'application/json' },
      payload: '{"version": "svc.config@v1", ',
    });
    expect(notJson.statusCode).toBe(400);
    expect(notJson.json().errors[0].code).toBe('VALIDATION_FAILED');
    expect(await exported('prod')).toEqual(before);
  });

  it('applies against the schema version the client saw (If-Match), and one of two racing applies wins', async () => {
    const site = 'modes';
    const plan = await call('POST', '/api/v1/config/import?dryRun=true', { version: 'svc.config@v1' }, site);
    const etag = plan.headers.etag as string;
    const add = (field: string) => ({
      version: 'svc.config@v1',
      fields: [{ collection: 'a', field, type: 'string' }],
    });
    const stale = await call('POST', '/api/v1/config/import', add('p'), site, admin, { 'if-match': '"1"' });
    expect(stale.statusCode).toBe(409);
    expect(stale.json().errors[0].code).toBe('CONFLICT');
    const fresh = await call('POST', '/api/v1/config/import', add('q'), site, admin, { 'if-match': etag });
    expect(fresh.statusCode).toBe(200);
    const again = await call('POST', '/api/v1/config/import', add('r'), site, admin, { 'if-match': etag });
    expect(again.statusCode).toBe(409);
    const racing = await Promise.all(
      ['s', 't'].map((f) =>
        call('POST', '/api/v1/config/import', add(f), site, admin, { 'if-match': fresh.headers.etag as string }),
      ),
    );
    expect(racing.map((r) => r.statusCode).sort()).toEqual([200, 409]);
  });

  it('exports the schema as it was (asOf) and rolls back to it with a dry run and an apply', async () => {
    const site = 'modes';
    const then = new Date().toISOString();
    await new Promise((r) => setTimeout(r, 20));
    await ok(
      'POST',
      '/api/v1/config/import',
      { version: 'svc.config@v1', fields: [{ collection: 'a', field: 'late', type: 'string' }] },
      site,
    );
    const past = await ok(
      'GET',
      `/api/v1/config/export?scope=schema&asOf=${encodeURIComponent(then)}`,
      undefined,
      site,
    );
    expect(past.fields.map((f: { field: string }) => f.field)).not.toContain('late');
    const dry = await ok('POST', '/api/v1/config/import?dryRun=true&mode=replace-all', past, site);
    expect(dry.operations).toEqual([{ resource: 'fields', action: 'delete', key: 'a.late', risk: 'medium' }]);
    await ok('POST', '/api/v1/config/import?mode=replace-all', past, site);
    const { exportedAt: _a, ...now } = await ok('GET', '/api/v1/config/export?scope=schema', undefined, site);
    const { exportedAt: _b, ...was } = past;
    expect(now).toEqual(was);
    expect((await call('GET', '/api/v1/config/export?asOf=yesterday', undefined, site)).statusCode).toBe(400);
  });

  it('carries webhooks by name, never their secrets, and deletes them only under replace-all', async () => {
    const site = 'modes';
    const hook = {
      name: 'search',
      url: 'https://hooks.example.com/in',
      events: ['items.create'],
      collections: null,
      enabled: true,
    };
    const created = await ok(
      'POST',
      '/api/v1/config/import?mode=merge',
      { version: 'svc.config@v1', webhooks: [hook] },
      site,
    );
    expect(created.operations).toEqual([{ resource: 'webhooks', action: 'create', key: 'search', risk: 'low' }]);
    const list = await ok('GET', '/api/v1/webhooks', undefined, site);
    expect(list).toEqual([expect.objectContaining({ name: 'search', url: hook.url, enabled: true })]);
    const manifest = await ok('GET', '/api/v1/config/export?scope=webhooks', undefined, site);
    expect(manifest.webhooks).toEqual([hook]);
    expect(JSON.stringify(manifest)).not.toMatch(/whsec_/);
    const same = await ok('POST', '/api/v1/config/import?mode=replace-all', manifest, site);
    expect(same.operations).toEqual([]);
    const moved = { ...manifest, webhooks: [{ ...hook, url: 'https://hooks.example.com/v2' }] };
    const updated = await ok('POST', '/api/v1/config/import?mode=merge', moved, site);
    expect(updated.operations).toEqual([
      { resource: 'webhooks', action: 'update', key: 'search', risk: 'low', changes: ['url'] },
    ]);
    const bad = await call(
      'POST',
      '/api/v1/config/import',
      { version: 'svc.config@v1', webhooks: [{ ...hook, events: ['items.explode'] }] },
      site,
    );
    expect(bad.statusCode).toBe(422);
    expect(bad.json().errors[0].path).toEqual(['webhooks', '0', 'events', '0']);
    const dangling = await call(
      'POST',
      '/api/v1/config/import',
      { version: 'svc.config@v1', webhooks: [{ ...hook, collections: ['ghosts'] }] },
      site,
    );
    expect(dangling.json().errors[0]).toMatchObject({
      code: 'DANGLING_REFERENCE',
      path: ['webhooks', '0', 'collections', '0'],
    });
    const merge = await ok(
      'POST',
      '/api/v1/config/import?dryRun=true&mode=replace-managed',
      { version: 'svc.config@v1', webhooks: [] },
      site,
    );
    expect(merge.operations).toEqual([]);
    const gone = await ok(
      'POST',
      '/api/v1/config/import?mode=replace-all',
      { version: 'svc.config@v1', webhooks: [] },
      site,
    );
    expect(gone.operations).toEqual([{ resource: 'webhooks', action: 'delete', key: 'search', risk: 'medium' }]);
    expect(await ok('GET', '/api/v1/webhooks', undefined, site)).toEqual([]);
  });

  it('is for administrators: a site admin, another site and an anonymous caller are refused', async () => {
    expect((await call('GET', '/api/v1/config/export', undefined, 'staging', siteAdmin)).statusCode).toBe(403);
    expect(
      (await call('POST', '/api/v1/config/import?dryRun=true', { version: 'svc.config@v1' }, 'staging', siteAdmin))
        .statusCode,
    ).toBe(403);
    expect((await call('GET', '/api/v1/config/export', undefined, 'other', siteAdmin)).statusCode).toBe(403);
    const anonymous = await t.call({ method: 'GET', url: '/api/v1/config/export', site: 'staging' });
    expect(anonymous.statusCode).toBe(401);
    // What one site exports is its own: the other site's export is empty.
    const other = await exported('other');
    expect(other.collections).toEqual([]);
    expect(other.fields).toEqual([]);
  });
});

describe("a collection's schema", () => {
  it('reads, applies (idempotent, diff-aware) and diffs one collection', async () => {
    const got = await call('GET', '/api/v1/collections/articles/schema', undefined, 'staging', siteAdmin);
    expect(got.statusCode).toBe(200);
    const bundle = got.json().data;
    expect(bundle.collections.map((c: { name: string }) => c.name)).toEqual(['articles']);
    expect(bundle.relations.map((r: { field: string }) => r.field)).toEqual(['author', 'tags']);
    const same = await call('PUT', '/api/v1/collections/articles/schema', bundle, 'staging', siteAdmin);
    expect(same.statusCode).toBe(200);
    expect(same.json().data.applied).toEqual({ created: 0, updated: 0, deleted: 0 });
    const changed = {
      ...bundle,
      fields: [
        ...bundle.fields.filter((f: { field: string }) => f.field !== 'kind'),
        { collection: 'articles', field: 'subtitle', type: 'string' },
      ],
    };
    const diff = await call('POST', '/api/v1/collections/diff', changed, 'staging', siteAdmin);
    expect(diff.json().data.operations).toEqual([
      { resource: 'fields', action: 'create', key: 'articles.subtitle', risk: 'low' },
      { resource: 'fields', action: 'delete', key: 'articles.kind', risk: 'medium' },
    ]);
    const put = await call('PUT', '/api/v1/collections/articles/schema', changed, 'staging', siteAdmin);
    expect(put.json().data.applied).toEqual({ created: 1, updated: 0, deleted: 1 });
    const after = (await call('GET', '/api/v1/collections/articles/schema', undefined, 'staging', siteAdmin)).json()
      .data;
    expect(after.fields.map((f: { field: string }) => f.field)).toEqual([
      'title',
      'views',
      'author',
      'tags',
      'subtitle',
    ]);
    // Another collection inside this one's schema is refused with its path.
    const foreign = { ...bundle, fields: [{ collection: 'authors', field: 'x', type: 'string' }] };
    const refused = await call('PUT', '/api/v1/collections/articles/schema', foreign, 'staging', siteAdmin);
    expect(refused.statusCode).toBe(422);
    expect(refused.json().errors[0].path).toEqual(['fields', '0', 'collection']);
    expect((await call('GET', '/api/v1/collections/nope/schema')).statusCode).toBe(404);
    expect((await call('GET', '/api/v1/collections/articles/schema', undefined, 'other')).statusCode).toBe(404);
  });

  it('changes a field type where the values convert, and refuses where they would not', async () => {
    const bundle = (await call('GET', '/api/v1/collections/articles/schema')).json().data;
    const item = await ok('POST', '/api/v1/items/articles', { title: 'Typed', views: 7 });
    const retype = (type: string) => ({
      ...bundle,
      fields: bundle.fields.map((f: { field: string }) => (f.field === 'views' ? { ...f, type, default: null } : f)),
    });
    const blocked = await call('PUT', '/api/v1/collections/articles/schema', retype('decimal'));
    expect(blocked.statusCode).toBe(409);
    expect(blocked.json().errors[0].extensions.operations[0]).toMatchObject({ key: 'articles.views', risk: 'high' });
    const done = await call('PUT', '/api/v1/collections/articles/schema?allowDestructive=true', retype('decimal'));
    expect(done.statusCode, done.body).toBe(200);
    expect((await ok('GET', '/api/v1/fields/articles/views')).type).toBe('decimal');
    expect((await ok('GET', `/api/v1/items/articles/${item.id}`)).views).toBe(7);
    await ok('PATCH', `/api/v1/items/articles/${item.id}`, { views: 7.5 });
    const filtered = await ok('GET', '/api/v1/items/articles?filter[views][_gt]=7.2&fields=title');
    expect(filtered).toEqual([expect.objectContaining({ title: 'Typed' })]);
    // A rebuild of the item documents replays the type change: reads go on while it runs, and give the same answers.
    const rebuilding = t.deps.engine.rebuild('item-documents');
    let reads = 0;
    let done2 = false;
    void rebuilding.then(() => (done2 = true));
    while (!done2 || reads === 0) {
      const read = await call('GET', `/api/v1/items/articles?filter[views][_gt]=7.2&fields=title,views`);
      expect(read.statusCode).toBe(200);
      expect(read.json().data).toEqual([expect.objectContaining({ title: 'Typed', views: 7.5 })]);
      reads++;
    }
    await rebuilding;
    expect(reads).toBeGreaterThan(0);
    expect(await ok('GET', '/api/v1/items/articles?filter[views][_gt]=7.2&fields=title')).toHaveLength(1);
    const lossy = await call('PUT', '/api/v1/collections/articles/schema?allowDestructive=true', retype('boolean'));
    expect(lossy.statusCode).toBe(422);
    expect(lossy.json().errors[0]).toMatchObject({ code: 'VALIDATION_FAILED', path: ['fields', '1', 'type'] });
  });
});
