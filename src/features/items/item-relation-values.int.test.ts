import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/setup/app.ts';
import { createUser } from '../../../test/setup/users.ts';
import type { AppDeps } from '../../deps.ts';

let t: TestApp;
let admin: string;
/** Creates and updates articles, reads only the authors of the `open` group. */
let writer: string;
type Method = 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';
const call = (method: Method, url: string, payload?: unknown, as = admin, site = 'main') =>
  t.call({ method, url, as, site, ...(payload !== undefined ? { payload: payload as object } : {}) });
const ok = async (method: Method, url: string, payload?: unknown, as = admin, site = 'main') => {
  const res = await call(method, url, payload, as, site);
  expect(res.statusCode, `${method} ${url}: ${res.body}`).toBeLessThan(300);
  return res.statusCode === 204 ? null : res.json();
};
/** 422 VALIDATION_FAILED whose problems name exactly these paths. */
const refusedAt = (res: { statusCode: number; body: string }, ...paths: string[][]) => {
  expect(res.statusCode, res.body).toBe(422);
  const errors = JSON.parse(res.body).errors as { code: string; path: string[]; extensions: object }[];
  expect(errors.map((e) => e.path)).toEqual(paths);
  for (const e of errors) {
    expect(e.code).toBe('VALIDATION_FAILED');
    expect(e.extensions).toMatchObject({ reason: 'invalid_relation' });
  }
};

/** articles: author —m2o→ authors, cover —m2o→ files, tags —m2m→ tags, related —m2a→ any. */
async function seed(site: string) {
  const c = (name: string) => ok('POST', '/api/v1/collections', { name }, admin, site);
  const f = (col: string, field: string, type: string) =>
    ok('POST', `/api/v1/fields/${col}`, { field, type }, admin, site);
  for (const name of ['authors', 'articles', 'tags', 'article_tags']) await c(name);
  await f('authors', 'name', 'string');
  await f('authors', 'group', 'string');
  await f('articles', 'title', 'string');
  await f('articles', 'author', 'string');
  await f('articles', 'cover', 'string');
  await f('articles', 'tags', 'json');
  await f('articles', 'related', 'json');
  await f('tags', 'label', 'string');
  await f('article_tags', 'articles_id', 'string');
  await f('article_tags', 'tags_id', 'string');
  const rel = (body: object) => ok('POST', '/api/v1/relations', body, admin, site);
  await rel({ kind: 'm2o', collection: 'articles', field: 'author', target: 'authors' });
  await rel({ kind: 'm2o', collection: 'articles', field: 'cover', target: 'files' });
  await rel({ kind: 'm2m', collection: 'articles', field: 'tags', target: 'tags', junctionCollection: 'article_tags' });
  await rel({ kind: 'm2a', collection: 'articles', field: 'related' });
  await ok(
    'POST',
    '/api/v1/items/authors',
    [
      { id: 'ada', name: 'Ada', group: 'open' },
      { id: 'hid', name: 'Hidden', group: 'closed' },
    ],
    admin,
    site,
  );
  await ok('POST', '/api/v1/items/tags', [{ id: 'go', label: 'Go' }], admin, site);
}

beforeAll(async () => {
  t = await createTestApp();
  admin = await t.setup();
  await ok('POST', '/api/v1/sites', { id: 'other', name: 'Other' });
  await seed('main');
  await seed('other');
  await ok('POST', '/api/v1/items/authors', { id: 'elsewhere', name: 'Elsewhere', group: 'open' }, admin, 'other');
  const role = (await ok('POST', '/api/v1/roles', { name: 'Writer' })).data.id;
  const policy = (await ok('POST', '/api/v1/policies', { name: 'Write articles' })).data.id;
  const rule = (body: object) => ok('POST', `/api/v1/policies/${policy}/permissions`, body);
  for (const action of ['create', 'read', 'update']) await rule({ collection: 'articles', action, fields: ['*'] });
  await rule({ collection: 'authors', action: 'read', fields: ['*'], conditions: { group: { _eq: 'open' } } });
  await rule({ collection: 'tags', action: 'read', fields: ['*'] });
  await ok('POST', `/api/v1/policies/${policy}/attach`, { role });
  writer = await createUser(t, 'writer@example.com', 'Relation-writer-77!', { main: role });
});
afterAll(() => t.close());

describe('relation values', () => {
  describe('POST /api/v1/items/:collection', () => {
    it('refuses an m2o value that names no item with 422 and the field path, storing nothing', async () => {
      refusedAt(await call('POST', '/api/v1/items/articles', { id: 'x1', author: 'no-such-author' }), ['author']);
      expect((await call('GET', '/api/v1/items/articles/x1')).statusCode).toBe(404);
    });

    it('refuses a file reference to a file that does not exist', async () => {
      refusedAt(await call('POST', '/api/v1/items/articles', { title: 'T', cover: 'no-such-file' }), ['cover']);
    });

    it('refuses an item of another site, a deleted item, and one the writer may not read', async () => {
      refusedAt(await call('POST', '/api/v1/items/articles', { author: 'elsewhere' }), ['author']);
      await ok('POST', '/api/v1/items/authors', { id: 'gone', name: 'Gone', group: 'open' });
      await ok('DELETE', '/api/v1/items/authors/gone');
      refusedAt(await call('POST', '/api/v1/items/articles', { author: 'gone' }), ['author']);
      refusedAt(await call('POST', '/api/v1/items/articles', { author: 'hid' }, writer), ['author']);
      const mine = await call('POST', '/api/v1/items/articles', { id: 'w1', author: 'ada' }, writer);
      expect(mine.statusCode, mine.body).toBe(201);
    });

    it('checks each id of an m2m and each entry of an m2a, with its place in the list', async () => {
      refusedAt(
        await call('POST', '/api/v1/items/articles', {
          tags: ['go', 'nope'],
          related: [
            { collection: 'authors', item: 'ada' },
            { collection: 'authors', item: 'ghost' },
            { collection: 'nowhere', item: 'x' },
          ],
        }),
        ['tags', '1'],
        ['related', '1'],
        ['related', '2'],
      );
    });

    it('checks every item of a bulk create under its index, and creates none', async () => {
      const res = await call('POST', '/api/v1/items/articles', [
        { id: 'b1', author: 'ada' },
        { id: 'b2', author: 'nobody' },
      ]);
      refusedAt(res, ['1', 'author']);
      expect((await call('GET', '/api/v1/items/articles/b1')).statusCode).toBe(404);
    });

    it('accepts references among the items one bulk create makes', async () => {
      const res = await call('POST', '/api/v1/items/articles', [
        { id: 's1', related: [{ collection: 'articles', item: 's2' }] },
        { id: 's2', related: [{ collection: 'articles', item: 's2' }] },
      ]);
      expect(res.statusCode, res.body).toBe(201);
    });

    it('accepts existing targets and null', async () => {
      const res = await call('POST', '/api/v1/items/articles', {
        id: 'good',
        author: 'ada',
        cover: null,
        tags: ['go'],
        related: [{ collection: 'tags', item: 'go' }],
      });
      expect(res.statusCode, res.body).toBe(201);
    });
  });

  describe('PATCH and PUT /api/v1/items/:collection/:id', () => {
    it('refuses a dangling reference on update and on replace, leaving the item as it was', async () => {
      refusedAt(await call('PATCH', '/api/v1/items/articles/good', { author: 'nobody' }), ['author']);
      refusedAt(await call('PUT', '/api/v1/items/articles/good', { title: 'T', author: 'nobody' }), ['author']);
      refusedAt(await call('PATCH', '/api/v1/items/articles/w1', { author: 'hid' }, writer), ['author']);
      expect((await call('GET', '/api/v1/items/articles/good')).json().data.author).toBe('ada');
    });

    it('keeps an update that does not touch the relation working while its target is deleted', async () => {
      await ok('POST', '/api/v1/items/authors', { id: 'later', name: 'Later', group: 'open' });
      await ok('POST', '/api/v1/items/articles', { id: 'keep', author: 'later' });
      await ok('DELETE', '/api/v1/items/authors/later');
      expect((await call('PATCH', '/api/v1/items/articles/keep', { title: 'Still' })).statusCode).toBe(200);
    });
  });

  describe('named versions: PATCH /api/v1/items/:collection/:id/versions/:key and promote', () => {
    const v = (path = '') => `/api/v1/items/articles/ver/versions${path}`;

    it("refuses a version's change that names no item, or one the writer may not read, at ['data', field]", async () => {
      await ok('POST', '/api/v1/items/articles', { id: 'ver', title: 'Main', author: 'ada' });
      await ok('POST', v(), { key: 'v1', name: 'V1' });
      refusedAt(await call('PATCH', v('/v1'), { data: { author: 'no-such-author' } }), ['data', 'author']);
      refusedAt(await call('PATCH', v('/v1'), { data: { tags: ['go', 'nope'] } }), ['data', 'tags', '1']);
      refusedAt(await call('PATCH', v('/v1'), { data: { author: 'hid' } }, writer), ['data', 'author']);
      expect((await ok('GET', v('/v1'))).data.data.author).toBe('ada');
      expect((await call('PATCH', v('/v1'), { data: { title: 'Draft', author: 'ada' } }, writer)).statusCode).toBe(200);
    });

    it('refuses to promote a version whose changed relation names an item deleted since, leaving main as it was', async () => {
      await ok('POST', '/api/v1/items/authors', { id: 'vgone', name: 'Soon gone', group: 'open' });
      await ok('PATCH', v('/v1'), { data: { author: 'vgone' } });
      await ok('DELETE', '/api/v1/items/authors/vgone');
      refusedAt(await call('POST', v('/v1/promote')), ['author']);
      expect((await ok('GET', '/api/v1/items/articles/ver')).data.author).toBe('ada');
    });

    it('judges a promote as its caller: a relation the caller may not read is refused', async () => {
      await ok('PATCH', v('/v1'), { data: { author: 'hid' } });
      refusedAt(await call('POST', v('/v1/promote'), undefined, writer), ['author']);
      const res = await call('POST', v('/v1/promote'));
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json().data.author).toBe('hid');
    });
  });

  describe('POST /api/v1/items/:collection/:id/revert', () => {
    const first = async (id: string) =>
      ((await ok('GET', `/api/v1/items/articles/${id}/revisions`)).data as { id: string }[]).at(-1)!.id;

    it('refuses a revert that would set a relation to an item deleted since, naming the field', async () => {
      await ok('POST', '/api/v1/items/authors', { id: 'rold', name: 'Old', group: 'open' });
      await ok('POST', '/api/v1/items/articles', { id: 'rev', title: 'A', author: 'rold' });
      const revisionId = await first('rev');
      await ok('PATCH', '/api/v1/items/articles/rev', { title: 'B', author: 'ada' });
      await ok('DELETE', '/api/v1/items/authors/rold');
      refusedAt(await call('POST', '/api/v1/items/articles/rev/revert', { revisionId }), ['author']);
      expect((await ok('GET', '/api/v1/items/articles/rev')).data).toMatchObject({ title: 'B', author: 'ada' });
    });

    it('refuses a revert to a relation the caller may not read', async () => {
      await ok('POST', '/api/v1/items/articles', { id: 'rev2', title: 'A', author: 'hid' });
      const revisionId = await first('rev2');
      await ok('PATCH', '/api/v1/items/articles/rev2', { author: 'ada' });
      refusedAt(await call('POST', '/api/v1/items/articles/rev2/revert', { revisionId }, writer), ['author']);
    });

    it('reverts other fields while a relation it leaves unchanged names an item deleted since', async () => {
      await ok('POST', '/api/v1/items/authors', { id: 'rkeep', name: 'Keep', group: 'open' });
      await ok('POST', '/api/v1/items/articles', { id: 'rev3', title: 'A', author: 'rkeep' });
      const revisionId = await first('rev3');
      await ok('PATCH', '/api/v1/items/articles/rev3', { title: 'B' });
      await ok('DELETE', '/api/v1/items/authors/rkeep');
      const res = await call('POST', '/api/v1/items/articles/rev3/revert', { revisionId });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json().data.title).toBe('A');
    });
  });

  describe('POST /api/v1/releases/:id/publish', () => {
    it("refuses an item whose pinned values name an item deleted since, as the author's PATCH would be", async () => {
      await ok('POST', '/api/v1/items/authors', { id: 'old', name: 'Old', group: 'open' });
      await ok('POST', '/api/v1/items/articles', { id: 'pin', author: 'old' });
      const first = (await call('GET', '/api/v1/items/articles/pin/revisions')).json().data[0].id;
      await ok('PATCH', '/api/v1/items/articles/pin', { author: 'ada' });
      await ok('DELETE', '/api/v1/items/authors/old');
      const item = { collection: 'articles', itemId: 'pin', targetStatus: 'published', revisionId: first };
      const r = (await ok('POST', '/api/v1/releases', { name: 'Pinned', addItems: [item] })).data;
      const res = await call('POST', `/api/v1/releases/${r.id}/publish`);
      expect(res.json().data.outcomes, res.body).toEqual([
        { collection: 'articles', itemId: 'pin', outcome: 'failed', reason: 'VALIDATION_FAILED' },
      ]);
      expect((await call('GET', '/api/v1/items/articles/pin')).json().data.author).toBe('ada');
    });
  });
});

/**
 * The relation check before the append and the append itself are two steps; another writer can commit in between.
 * These tests put the other writer there (its request runs when this write's append starts) and expect the append's
 * own check, made inside its transaction, to refuse what the first check could not see.
 */
describe('a deletion racing a write that names its target', () => {
  type Append = AppDeps['store']['appendMany'];
  /** Runs `meanwhile` once, just before the first append touching a stream that `streamPart` names. */
  async function between<T>(streamPart: string, meanwhile: () => Promise<unknown>, write: () => Promise<T>) {
    const store = t.deps.store;
    const append = store.append.bind(store);
    const appendMany: Append = store.appendMany.bind(store);
    let armed = true;
    const before = async (ids: string[]) => {
      if (!armed || !ids.some((id) => id.includes(streamPart))) return;
      armed = false;
      await meanwhile();
    };
    store.append = async (streamId, events, opts) => (await before([streamId]), append(streamId, events, opts));
    store.appendMany = async (batch) => (await before(batch.map((b) => b.streamId)), appendMany(batch));
    try {
      return await write();
    } finally {
      store.append = append;
      store.appendMany = appendMany;
      expect(armed, `no append touched ${streamPart}`).toBe(false);
    }
  }

  beforeAll(async () => {
    for (const name of ['people', 'memos']) await ok('POST', '/api/v1/collections', { name });
    await ok('POST', '/api/v1/fields/people', { field: 'name', type: 'string' });
    await ok('POST', '/api/v1/fields/memos', { field: 'owner', type: 'string' });
    await ok('POST', '/api/v1/fields/memos', { field: 'reviewer', type: 'string' });
    const rel = (body: object) => ok('POST', '/api/v1/relations', body);
    await rel({ kind: 'm2o', collection: 'memos', field: 'owner', target: 'people', onDelete: 'restrict' });
    await rel({ kind: 'm2o', collection: 'memos', field: 'reviewer', target: 'people', onDelete: 'set null' });
  });

  it('refuses a create whose target is deleted after the check and before the append, storing nothing', async () => {
    await ok('POST', '/api/v1/items/people', { id: 'p1', name: 'One' });
    const res = await between(
      '/memos/',
      () => ok('DELETE', '/api/v1/items/people/p1'),
      () => call('POST', '/api/v1/items/memos', { id: 'm1', reviewer: 'p1' }),
    );
    refusedAt(res, ['reviewer']);
    expect((await call('GET', '/api/v1/items/memos/m1')).statusCode).toBe(404);
  });

  it('refuses an update and a bulk create the same way', async () => {
    await ok('POST', '/api/v1/items/people', [
      { id: 'p2', name: 'Two' },
      { id: 'p3', name: 'Three' },
    ]);
    await ok('POST', '/api/v1/items/memos', { id: 'm2' });
    const patched = await between(
      '/memos/m2',
      () => ok('DELETE', '/api/v1/items/people/p2'),
      () => call('PATCH', '/api/v1/items/memos/m2', { reviewer: 'p2' }),
    );
    refusedAt(patched, ['reviewer']);
    expect((await ok('GET', '/api/v1/items/memos/m2')).data.reviewer).toBeNull();
    const bulk = await between(
      '/memos/',
      () => ok('DELETE', '/api/v1/items/people/p3'),
      () =>
        call('POST', '/api/v1/items/memos', [
          { id: 'm3', reviewer: null },
          { id: 'm4', reviewer: 'p3' },
        ]),
    );
    refusedAt(bulk, ['1', 'reviewer']);
    expect((await call('GET', '/api/v1/items/memos/m3')).statusCode).toBe(404);
  });

  it('refuses a delete held up by a restrict relation made after its check, keeping the item', async () => {
    await ok('POST', '/api/v1/items/people', { id: 'p4', name: 'Four' });
    const res = await between(
      '/people/p4',
      () => ok('POST', '/api/v1/items/memos', { id: 'm5', owner: 'p4' }),
      () => call('DELETE', '/api/v1/items/people/p4'),
    );
    expect(res.statusCode, res.body).toBe(409);
    expect(res.json().errors[0]).toMatchObject({ code: 'DEPENDENT_RECORDS_EXIST' });
    expect((await ok('GET', '/api/v1/items/people/p4')).data.name).toBe('Four');
    expect((await ok('GET', '/api/v1/items/memos/m5')).data.owner).toBe('p4');
  });

  it('leaves no memo pointing at a deleted person when the writes and the deletion truly run at once', async () => {
    for (let round = 0; round < 6; round++) {
      const p = `q${round}`;
      await ok('POST', '/api/v1/items/people', { id: p, name: p });
      const [deleted, ...writes] = await Promise.all([
        call('DELETE', `/api/v1/items/people/${p}`),
        ...[0, 1, 2].map((i) => call('POST', '/api/v1/items/memos', { id: `${p}m${i}`, owner: p })),
      ]);
      for (const w of writes) expect([201, 422], w.body).toContain(w.statusCode);
      expect([204, 409], deleted!.body).toContain(deleted!.statusCode);
      const pointing = (await ok('GET', `/api/v1/items/memos?filter[owner][_eq]=${p}`)).data as unknown[];
      expect(pointing).toHaveLength(writes.filter((w) => w.statusCode === 201).length);
      if (deleted!.statusCode === 204) expect(pointing).toEqual([]);
      else expect(pointing.length).toBeGreaterThan(0);
    }
  });
});
