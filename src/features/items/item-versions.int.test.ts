import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/setup/app.ts';
import { deciderSpec } from '../../../test/support/decider-spec.ts';
import { itemVersionsDecider } from './item-versions.ts';

let t: TestApp;
let admin: string;
const call = (
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE',
  url: string,
  payload?: unknown,
  site = 'main',
  headers = {},
) => t.call({ method, url, payload: payload as object, as: admin, site, headers });
const v = (path = '') => `/api/v1/items/articles/a1/versions${path}`;

beforeAll(async () => {
  t = await createTestApp();
  admin = await t.setup();
  await call('POST', '/api/v1/sites', { id: 'other', name: 'Other' });
  for (const site of ['main', 'other']) {
    await call('POST', '/api/v1/collections', { name: 'articles' }, site);
    await call('POST', '/api/v1/fields/articles', { field: 'title', type: 'string', required: true }, site);
    await call('POST', '/api/v1/fields/articles', { field: 'body', type: 'text' }, site);
    await call('POST', '/api/v1/items/articles', { id: 'a1', title: 'Main', body: 'Text' }, site);
  }
});
afterAll(() => t.close());

describe('named versions', () => {
  it('snapshots main, edits the draft without touching main, and refuses a taken key', async () => {
    const created = await call('POST', v(), { key: 'draft', name: 'Spring rewrite' });
    expect(created.statusCode, created.body).toBe(201);
    expect(created.json().data).toMatchObject({
      key: 'draft',
      name: 'Spring rewrite',
      data: { title: 'Main' },
      mainChanged: false,
    });
    expect((await call('POST', v(), { key: 'draft', name: 'Again' })).statusCode).toBe(409);
    const patched = await call('PATCH', v('/draft'), { data: { title: 'Draft title' }, name: 'Spring' });
    expect(patched.json().data).toMatchObject({ name: 'Spring', data: { title: 'Draft title', body: 'Text' } });
    expect((await call('GET', '/api/v1/items/articles/a1')).json().data.title).toBe('Main');
    const bad = await call('PATCH', v('/draft'), { data: { title: 5 } });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().errors[0].path).toEqual(['data', 'title']);
    expect((await call('GET', v())).json().data.map((x: { key: string }) => x.key)).toEqual(['draft']);
  });

  it('reads the draft with X-Svc-Draft: true, and compares it with main', async () => {
    const draft = await call('GET', '/api/v1/items/articles/a1', undefined, 'main', { 'x-svc-draft': 'true' });
    expect(draft.json()).toMatchObject({ data: { title: 'Draft title' }, meta: { draft: true } });
    const cmp = (await call('GET', v('/draft/compare'))).json().data;
    expect(cmp.main).toMatchObject({ title: 'Main' });
    expect(cmp.version).toMatchObject({ title: 'Draft title' });
    expect(cmp.changes).toEqual({ title: 'Draft title' });
  });

  it('marks mainChanged when main moves on, and promote reports mainDiverged with a promote revision', async () => {
    await call('PATCH', '/api/v1/items/articles/a1', { body: 'Edited on main' });
    expect((await call('GET', v('/draft'))).json().data.mainChanged).toBe(true);
    const res = await call('POST', v('/draft/promote'));
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data).toMatchObject({ title: 'Draft title', body: 'Text' });
    expect(res.json().meta.mainDiverged).toBe(true);
    const revs = (await call('GET', '/api/v1/items/articles/a1/revisions')).json().data;
    expect(revs[0]).toMatchObject({ action: 'promote', id: res.json().meta.revisionId });
  });

  it('answers 404 for a missing or deleted version, an unknown item, and another site', async () => {
    expect((await call('DELETE', v('/draft'))).statusCode).toBe(204);
    for (const [method, path] of [
      ['GET', v('/draft')],
      ['POST', v('/draft/promote')],
      ['GET', v('/draft/compare')],
      ['DELETE', v('/draft')],
    ] as const) {
      const res = await call(method, path);
      expect(res.statusCode, path).toBe(404);
      expect(res.json().errors[0].code).toBe('NOT_FOUND');
    }
    await call('POST', v(), { key: 'mine', name: 'Mine' });
    expect((await call('GET', v('/mine'), undefined, 'other')).statusCode).toBe(404);
    expect((await call('GET', '/api/v1/items/articles/zz/versions')).statusCode).toBe(404);
    expect((await call('POST', v(), { key: 'bad key!', name: 'x' })).statusCode).toBe(400);
  });
});

describe('ItemVersions decider', () => {
  const at = { collection: 'articles', id: 'a1', at: '2026-01-01T00:00:00.000Z', by: 'u' };
  const given = deciderSpec(itemVersionsDecider);
  it('creates once per key, updates and deletes only what exists', () => {
    given([])
      .when({ type: 'CreateVersion', data: { ...at, key: 'k', name: 'K', data: { a: 1 }, base: 1 } })
      .then([{ type: 'ItemVersionCreated', data: { ...at, key: 'k', name: 'K', data: { a: 1 }, base: 1 } }]);
    given([{ type: 'ItemVersionCreated', data: { ...at, key: 'k', name: 'K', data: {}, base: 1 } }])
      .when({ type: 'CreateVersion', data: { ...at, key: 'k', name: 'K', data: {}, base: 1 } })
      .thenThrows('CONFLICT');
    given([])
      .when({ type: 'UpdateVersion', data: { ...at, key: 'k', name: 'x' } })
      .thenThrows('NOT_FOUND');
    given([
      { type: 'ItemVersionCreated', data: { ...at, key: 'k', name: 'K', data: {}, base: 1 } },
      { type: 'ItemVersionDeleted', data: { ...at, key: 'k' } },
    ])
      .when({ type: 'DeleteVersion', data: { ...at, key: 'k' } })
      .thenThrows('NOT_FOUND');
  });
});
