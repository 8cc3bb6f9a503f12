import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/setup/app.ts';
import { createUser } from '../../../test/setup/users.ts';
import { ManualClock } from '../../kernel/clock.ts';

const clock = new ManualClock(new Date('2026-03-01T00:00:00Z'));
let t: TestApp;
let admin: string;
let editor: string;
const call = (
  method: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE',
  url: string,
  payload?: unknown,
  site = 'main',
  as = admin,
) => t.call({ method, url, payload: payload as object, as, site });

beforeAll(async () => {
  t = await createTestApp({ clock });
  admin = await t.setup();
  editor = await createUser(t, 'editor@example.com', 'Editor-pass-1234', { main: 'editor' });
  await call('POST', '/api/v1/sites', { id: 'other', name: 'Other' });
  for (const site of ['main', 'other']) {
    await call('POST', '/api/v1/collections', { name: 'articles' }, site);
    await call('POST', '/api/v1/fields/articles', { field: 'title', type: 'string', required: true }, site);
    await call('POST', '/api/v1/fields/articles', { field: 'views', type: 'integer' }, site);
  }
});
afterAll(() => t.close());

const at = (iso: string) => clock.set(iso);

describe('revisions', () => {
  it('records every change newest first, with data, delta, actor and the revisionId of each write', async () => {
    at('2026-03-01T10:00:00Z');
    const created = await call('POST', '/api/v1/items/articles', { id: 'a1', title: 'One', views: 1 });
    at('2026-03-02T10:00:00Z');
    const patched = await call('PATCH', '/api/v1/items/articles/a1', { views: 2 });
    at('2026-03-03T10:00:00Z');
    const replaced = await call('PUT', '/api/v1/items/articles/a1', { title: 'Uno' });
    const res = await call('GET', '/api/v1/items/articles/a1/revisions');
    expect(res.statusCode).toBe(200);
    const revs = res.json().data;
    expect(revs.map((r: { action: string; version: number }) => [r.action, r.version])).toEqual([
      ['update', 3],
      ['update', 2],
      ['create', 1],
    ]);
    expect(revs.map((r: { id: string }) => r.id)).toEqual([
      replaced.json().meta.revisionId,
      patched.json().meta.revisionId,
      created.json().meta.revisionId,
    ]);
    expect(revs[0]).toMatchObject({
      collection: 'articles',
      itemId: 'a1',
      data: { id: 'a1', title: 'Uno' },
      delta: { title: 'Uno', views: null },
      actor: { type: 'user' },
      committed: true,
      timestamp: '2026-03-03T10:00:00.000Z',
    });
    expect(revs[1].delta).toEqual({ views: 2 });
    expect(res.json().meta).toEqual({ total: 3, limit: 25, offset: 0 });
    const page = await call('GET', '/api/v1/items/articles/a1/revisions?limit=1&page=2');
    expect(page.json().data[0].version).toBe(2);
  });

  it('reverts to a revision with a new revision, never rewriting history', async () => {
    const revs = (await call('GET', '/api/v1/items/articles/a1/revisions')).json().data;
    at('2026-03-04T10:00:00Z');
    const res = await call('POST', '/api/v1/items/articles/a1/revert', { revisionId: revs[1].id }, 'main', editor);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data).toMatchObject({ title: 'One', views: 2 });
    const after = (await call('GET', '/api/v1/items/articles/a1/revisions')).json();
    expect(after.meta.total).toBe(4);
    expect(after.data[0]).toMatchObject({
      action: 'revert',
      id: res.json().meta.revisionId,
      delta: { title: 'One', views: 2 },
    });
  });

  it('answers 404 for an unknown revision, one of another item, or of another site', async () => {
    await call('POST', '/api/v1/items/articles', { id: 'a2', title: 'Two' });
    await call('POST', '/api/v1/items/articles', { id: 'a1', title: 'Elsewhere' }, 'other');
    const otherItem = (await call('GET', '/api/v1/items/articles/a2/revisions')).json().data[0].id;
    const otherSite = (await call('GET', '/api/v1/items/articles/a1/revisions', undefined, 'other')).json().data[0].id;
    for (const revisionId of ['nope', '00000000-0000-4000-8000-000000000000', otherItem, otherSite]) {
      const res = await call('POST', '/api/v1/items/articles/a1/revert', { revisionId });
      expect(res.statusCode, revisionId).toBe(404);
      expect(res.json().errors[0].code).toBe('NOT_FOUND');
    }
    expect((await call('GET', '/api/v1/items/articles/zz/revisions')).statusCode).toBe(404);
  });
});

describe('time travel', () => {
  it('reads an item as it was at a time or a version, and 404 before it existed', async () => {
    const get = async (q: string) => call('GET', `/api/v1/items/articles/a1?${q}`);
    expect((await get('asOf=2026-03-01T12:00:00Z')).json().data).toMatchObject({ title: 'One', views: 1 });
    expect((await get('asOf=2026-03-02T10:00:00Z')).json().data).toMatchObject({ title: 'One', views: 2 });
    expect((await get('asOf=2026-03-03')).json().data).toMatchObject({ title: 'One', views: 2 });
    expect((await get('asOf=2026-03-03T12:00:00%2B00:00')).json().data).toEqual({
      id: 'a1',
      title: 'Uno',
      created_at: '2026-03-01T10:00:00.000Z',
      created_by: expect.any(String),
      updated_at: '2026-03-03T10:00:00.000Z',
      updated_by: expect.any(String),
    });
    expect((await get('version=1')).json().data.views).toBe(1);
    expect((await get('asOf=2026-02-28T00:00:00Z')).statusCode).toBe(404);
    const bad = await get('asOf=yesterday');
    expect(bad.statusCode).toBe(400);
    expect(bad.json().errors[0].path).toEqual(['query', 'asOf']);
    expect((await get('version=0')).statusCode).toBe(400);
  });

  it('lists a collection as it was, with filters', async () => {
    const list = async (q: string) =>
      (await call('GET', `/api/v1/items/articles?fields=id,title&sort=id&${q}`)).json().data;
    expect(await list('asOf=2026-03-02T12:00:00Z')).toEqual([{ id: 'a1', title: 'One' }]);
    expect(await list('asOf=2026-03-03T12:00:00Z&filter[title][_eq]=Uno')).toEqual([{ id: 'a1', title: 'Uno' }]);
    expect((await list('')).map((x: { id: string }) => x.id)).toEqual(['a1', 'a2']);
  });
});

describe('soft-deleted items', () => {
  it('are hidden, listed with withDeleted for admins only, and restored', async () => {
    at('2026-03-05T10:00:00Z');
    expect((await call('DELETE', '/api/v1/items/articles/a2')).statusCode).toBe(204);
    expect((await call('GET', '/api/v1/items/articles/a2')).statusCode).toBe(404);
    const all = (await call('GET', '/api/v1/items/articles?withDeleted=true&fields=id,deleted_at&sort=id')).json().data;
    expect(all).toEqual([
      { id: 'a1', deleted_at: null },
      { id: 'a2', deleted_at: '2026-03-05T10:00:00.000Z' },
    ]);
    expect((await call('GET', '/api/v1/items/articles/a2?withDeleted=true')).json().data.deleted_at).toBe(
      '2026-03-05T10:00:00.000Z',
    );
    expect((await call('GET', '/api/v1/items/articles?withDeleted=true', undefined, 'main', editor)).statusCode).toBe(
      403,
    );
    expect((await call('GET', '/api/v1/items/articles/a2?asOf=2026-03-05T11:00:00Z')).statusCode).toBe(404);
    expect((await call('POST', '/api/v1/items/articles/a2/restore', undefined, 'main', editor)).statusCode).toBe(403);
    const restored = await call('POST', '/api/v1/items/articles/a2/restore');
    expect(restored.statusCode).toBe(200);
    expect((await call('GET', '/api/v1/items/articles/a2')).json().data.title).toBe('Two');
    expect((await call('POST', '/api/v1/items/articles/a2/restore')).statusCode).toBe(404);
    const revs = (await call('GET', '/api/v1/items/articles/a2/revisions')).json().data;
    expect(revs.map((r: { action: string }) => r.action)).toEqual(['restore', 'delete', 'create']);
  });
});

describe('asOf property', () => {
  it('asOf each revision time returns exactly that revision’s data', async () => {
    const write = fc.oneof(
      fc.record({ kind: fc.constant('patch' as const), views: fc.integer({ min: 0, max: 1000 }) }),
      fc.record({ kind: fc.constant('put' as const), title: fc.string({ minLength: 1, maxLength: 20 }) }),
    );
    let n = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(write, { minLength: 1, maxLength: 8 }), async (writes) => {
        const id = `p${n++}`;
        at(`2026-04-01T00:00:00Z`);
        clock.advance(n * 86_400_000);
        await call('POST', '/api/v1/items/articles', { id, title: 'start' });
        // A PATCH that changes nothing records nothing: count the writes that do.
        let views: number | undefined;
        let changes = 1;
        for (const w of writes) {
          clock.advance(1000);
          if (w.kind === 'patch') {
            await call('PATCH', `/api/v1/items/articles/${id}`, { views: w.views });
            if (w.views !== views) changes++;
            views = w.views;
          } else {
            await call('PUT', `/api/v1/items/articles/${id}`, { title: w.title });
            changes++;
            views = undefined;
          }
        }
        const revs = (await call('GET', `/api/v1/items/articles/${id}/revisions?limit=200`)).json().data;
        expect(revs).toHaveLength(changes);
        for (const r of revs) {
          const then = (
            await call('GET', `/api/v1/items/articles/${id}?asOf=${encodeURIComponent(r.timestamp)}`)
          ).json().data;
          const { created_at: _c, created_by: _cb, updated_at: _u, updated_by: _ub, ...values } = then;
          expect(values).toEqual(r.data);
        }
      }),
      { numRuns: 15 },
    );
  });
});
