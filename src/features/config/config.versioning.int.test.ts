import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiClient, firstError } from '../../../test/setup/api.ts';
import { createTestApp, type TestApp } from '../../../test/setup/app.ts';
import { createUser } from '../../../test/setup/users.ts';

/**
 * `versioning` is a collection's named-version (draft) switch (issue 34, point 1): the log keeps every change
 * whatever it says. Off, the collection has no named versions and no drafts; the schema API and the configuration
 * manifest carry the real value, and an export imports back with no change.
 */
let t: TestApp;
let admin: string;
const { call, ok } = apiClient(
  () => t,
  () => admin,
);
const manifest = (collections: object[], extra: object = {}) => ({ version: 'svc.config@v1', collections, ...extra });

beforeAll(async () => {
  t = await createTestApp();
  admin = await t.setup();
  await ok('POST', '/api/v1/sites', { id: 'other', name: 'Other' });
});
afterAll(() => t.close());

describe('POST /api/v1/collections with versioning', () => {
  it('keeps versioning false, shows it, and lets a site admin turn it on and off', async () => {
    const created = await ok('POST', '/api/v1/collections', { name: 'notes', versioning: false });
    expect(created.versioning).toBe(false);
    expect((await ok('GET', '/api/v1/collections/notes')).versioning).toBe(false);
    await ok('POST', '/api/v1/collections', { name: 'posts' });
    expect((await ok('GET', '/api/v1/collections/posts')).versioning).toBe(true);
    expect((await ok('PATCH', '/api/v1/collections/posts', { versioning: false })).versioning).toBe(false);
    expect((await ok('PATCH', '/api/v1/collections/posts', { versioning: true })).versioning).toBe(true);
  });
});

describe('named versions of a collection with versioning off', () => {
  beforeAll(async () => {
    await ok('POST', '/api/v1/collections', { name: 'drafts_off', versioning: false });
    await ok('POST', '/api/v1/fields/drafts_off', { field: 'title', type: 'string' });
    await ok('POST', '/api/v1/items/drafts_off', { id: 'n1', title: 'Main' });
  });
  const off = (res: { statusCode: number; body: string }) => {
    expect(res.statusCode, res.body).toBe(400);
    expect(firstError(res.body)).toMatchObject({ code: 'VALIDATION_FAILED', extensions: { reason: 'versioning_off' } });
    return firstError(res.body);
  };
  const v = (path = '') => `/api/v1/items/drafts_off/n1/versions${path}`;

  it('answers every /versions route with 400 VALIDATION_FAILED (versioning_off)', async () => {
    expect(off(await call('POST', v(), { key: 'draft', name: 'x' })).path).toEqual(['params', 'collection']);
    off(await call('GET', v()));
    off(await call('GET', v('/draft')));
    off(await call('PATCH', v('/draft'), { name: 'y' }));
    off(await call('GET', v('/draft/compare')));
    off(await call('POST', v('/draft/promote')));
    off(await call('DELETE', v('/draft')));
  });

  it('answers X-Svc-Draft: true with 400 at the header, and reads main without it', async () => {
    const draft = await call('GET', '/api/v1/items/drafts_off/n1', undefined, { headers: { 'x-svc-draft': 'true' } });
    expect(off(draft).path).toEqual(['headers', 'x-svc-draft']);
    const plain = await call('GET', '/api/v1/items/drafts_off/n1', undefined, { headers: { 'x-svc-draft': 'false' } });
    expect(plain.json().data.title).toBe('Main');
  });

  it('keeps versions made while it was on, and shows them again once it is back on', async () => {
    await ok('POST', '/api/v1/collections', { name: 'toggled' });
    await ok('POST', '/api/v1/items/toggled', { id: 't1' });
    await ok('POST', '/api/v1/items/toggled/t1/versions', { key: 'draft', name: 'x' });
    await ok('PATCH', '/api/v1/collections/toggled', { versioning: false });
    off(await call('GET', '/api/v1/items/toggled/t1/versions/draft'));
    await ok('PATCH', '/api/v1/collections/toggled', { versioning: true });
    expect((await ok('GET', '/api/v1/items/toggled/t1/versions/draft')).key).toBe('draft');
  });

  it('is not reachable from another site or anonymously', async () => {
    expect((await call('GET', v(), undefined, { site: 'other' })).statusCode).toBe(404);
    expect((await call('GET', v(), undefined, { as: null })).statusCode).toBeGreaterThanOrEqual(401);
  });
});

describe('configuration manifests with versioning false', () => {
  it('imports versioning false, exports the real value, and re-imports the export with no change', async () => {
    const m = manifest([
      { name: 'plain', versioning: false, label: 'Plain' },
      { name: 'drafted', versioning: true },
    ]);
    const applied = await ok('POST', '/api/v1/config/import?mode=merge', m, { site: 'other' });
    expect(applied.valid).toBe(true);
    expect((await ok('GET', '/api/v1/collections/plain', undefined, { site: 'other' })).versioning).toBe(false);
    const exported = await ok('GET', '/api/v1/config/export?scope=schema', undefined, { site: 'other' });
    expect(exported.collections).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ name: 'plain', versioning: false }),
        expect.objectContaining({ name: 'drafted', versioning: true }),
      ]),
    );
    const again = await ok('POST', '/api/v1/config/import?mode=merge&dryRun=true', exported, { site: 'other' });
    expect(again.operations).toEqual([]);
    expect(again.diff.collections).toMatchObject({ create: 0, update: 0, delete: 0 });
    const schema = await ok('GET', '/api/v1/collections/plain/schema', undefined, { site: 'other' });
    expect(schema.collections[0].versioning).toBe(false);
  });

  it('plans a change of versioning as an update of the collection', async () => {
    const plan = await ok(
      'POST',
      '/api/v1/config/import?mode=merge&dryRun=true',
      manifest([{ name: 'plain', versioning: true, label: 'Plain' }]),
      {
        site: 'other',
      },
    );
    expect(plan.operations).toEqual([
      expect.objectContaining({ resource: 'collections', action: 'update', key: 'plain', changes: ['versioning'] }),
    ]);
  });

  it('reports the other errors of a hand-written manifest with versioning false', async () => {
    const res = await call(
      'POST',
      '/api/v1/config/import?mode=merge&dryRun=true',
      manifest([{ name: 'hand', versioning: false }], {
        fields: [
          { collection: 'hand', field: 'author', type: 'string' },
          { collection: 'ghosts', field: 'x', type: 'string' },
        ],
        relations: [{ kind: 'm2o', collection: 'hand', field: 'author', target: 'nobody' }],
      }),
      { site: 'other' },
    );
    expect(res.statusCode, res.body).toBe(422);
    const errors = res.json().errors as { code: string; path: string[] }[];
    expect(errors.map((e) => e.code)).not.toContain('VALIDATION_FAILED');
    expect(errors).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ code: 'DANGLING_REFERENCE', path: ['fields', '1', 'collection'] }),
        expect.objectContaining({ code: 'DANGLING_REFERENCE', path: ['relations', '0', 'target'] }),
      ]),
    );
  });
});

describe('who may set versioning', () => {
  it("refuses a viewer's change of versioning", async () => {
    const viewer = await createUser(t, 'viewer@versioning.test', 'Viewer-pass-1618!', { main: 'viewer' });
    const res = await call('PATCH', '/api/v1/collections/posts', { versioning: false }, { as: viewer });
    expect(res.statusCode).toBe(403);
  });
});
