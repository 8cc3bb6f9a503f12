import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/setup/app.ts';
import { apiClient, firstError } from '../../../test/setup/api.ts';
import { createUser } from '../../../test/setup/users.ts';

let t: TestApp;
let admin: string;
/** Users of site main: alice and bob hold the leaf of a three-role chain leaf → mid → grand; carol is an editor. */
let alice: string;
let bob: string;
let carol: string;
/** Site other's admin and one of its editors. */
let otherAdmin: string;
let otherEditor: string;
let aliceId: string;
let bobId: string;
const roles = { grand: '', mid: '', leaf: '' };

const { call, ok } = apiClient(
  () => t,
  () => admin,
);
const preset = (body: object, as = admin, site = 'main') => ok('POST', '/api/v1/presets', body, { as, site });
const effective = async (as: string, collection = 'posts') =>
  (await ok('GET', `/api/v1/presets/effective?collection=${collection}`, undefined, { as })) as {
    id: string;
    sourceScope: string;
    roleId: string | null;
    query: { limit: number };
  } | null;

beforeAll(async () => {
  t = await createTestApp();
  admin = await t.setup();
  await ok('POST', '/api/v1/sites', { id: 'other', name: 'Other' });
  for (const site of ['main', 'other']) {
    await ok('POST', '/api/v1/collections', { name: 'posts' }, { site });
    for (const [field, type] of [
      ['title', 'string'],
      ['category', 'string'],
      ['meta', 'json'],
    ])
      await ok('POST', '/api/v1/fields/posts', { field, type }, { site });
  }
  roles.grand = (await ok('POST', '/api/v1/roles', { name: 'Grand', parentId: 'editor' })).id;
  roles.mid = (await ok('POST', '/api/v1/roles', { name: 'Mid', parentId: roles.grand })).id;
  roles.leaf = (await ok('POST', '/api/v1/roles', { name: 'Leaf', parentId: roles.mid })).id;
  alice = await createUser(t, 'alice@example.com', 'Alice-pass-1618!', { main: roles.leaf });
  bob = await createUser(t, 'bob@example.com', 'Bob-pass-1618!', { main: roles.leaf });
  carol = await createUser(t, 'carol@example.com', 'Carol-pass-1618!', { main: 'editor' });
  otherAdmin = await createUser(t, 'eve@example.com', 'Eve-pass-1618!', { other: 'admin' });
  otherEditor = await createUser(t, 'mallory@example.com', 'Mallory-pass-1618!', { other: 'editor' });
  aliceId = (await ok('GET', '/api/v1/auth/me', undefined, { as: alice })).id;
  bobId = (await ok('GET', '/api/v1/auth/me', undefined, { as: bob })).id;
  // Two sites, a role chain and five accounts (each a password hash and a login): generous on a busy machine.
}, 180_000);
afterAll(() => t.close());

describe('GET /api/v1/presets/effective', () => {
  it('takes the user default, then the nearest role default up the chain, then the global default', async () => {
    expect(await effective(alice)).toBeNull();
    const global = await preset({ collection: 'posts', scope: 'global', query: { limit: 10 } });
    const grand = await preset({ collection: 'posts', roleId: roles.grand, query: { limit: 20 } });
    const mid = await preset({ collection: 'posts', roleId: roles.mid, query: { limit: 30 } });
    expect(global.sourceScope).toBe('global');
    expect(await effective(alice)).toMatchObject({ id: mid.id, sourceScope: 'role', roleId: roles.mid });
    expect(await effective(carol)).toMatchObject({ id: global.id, sourceScope: 'global' });

    const own = await preset({ collection: 'posts', userId: aliceId, query: { limit: 40 } }, alice);
    expect(own).toMatchObject({ userId: aliceId, roleId: null, sourceScope: 'user' });
    expect(await effective(alice)).toMatchObject({ id: own.id, sourceScope: 'user' });
    expect(await effective(bob)).toMatchObject({ id: mid.id });

    // A cycle in the chain is refused where roles change, so the chain the presets follow stays finite.
    const cycle = await call('PATCH', `/api/v1/roles/${roles.grand}`, { parentId: roles.leaf });
    expect(cycle.statusCode, cycle.body).toBeGreaterThanOrEqual(400);
    expect(cycle.statusCode).toBeLessThan(500);

    await ok('DELETE', `/api/v1/presets/${own.id}`, undefined, { as: alice });
    expect(await effective(alice)).toMatchObject({ id: mid.id, sourceScope: 'role' });
    await ok('DELETE', `/api/v1/presets/${mid.id}`);
    expect(await effective(alice)).toMatchObject({ id: grand.id, sourceScope: 'role', roleId: roles.grand });
    await ok('DELETE', `/api/v1/presets/${grand.id}`);
    expect(await effective(alice)).toMatchObject({ id: global.id, sourceScope: 'global' });
    await ok('DELETE', `/api/v1/presets/${global.id}`);
  }, 120_000);

  it('refuses a second default of one scope and collection with 409 CONFLICT', async () => {
    const first = await preset({ collection: 'posts', userId: bobId }, bob);
    const res = await call('POST', '/api/v1/presets', { collection: 'posts', userId: bobId }, { as: bob });
    expect(res.statusCode, res.body).toBe(409);
    expect(firstError(res.body)).toMatchObject({ code: 'CONFLICT', path: ['bookmark'] });
    await ok('DELETE', `/api/v1/presets/${first.id}`, undefined, { as: bob });
  });

  it('answers 401 to an anonymous caller', async () => {
    const res = await call('GET', '/api/v1/presets/effective?collection=posts', undefined, { as: null });
    expect(res.statusCode).toBe(401);
  });
});

describe('GET /api/v1/presets/bookmarks', () => {
  it("lists the caller's own, their role chain's and the global bookmarks, each with its sourceScope", async () => {
    await preset({ collection: 'posts', userId: aliceId, bookmark: 'Mine', query: { sort: ['-title'] } }, alice);
    await preset({ collection: 'posts', bookmark: 'Team', roleId: roles.grand });
    await preset({ collection: 'posts', bookmark: 'Everyone', scope: 'global' });
    await preset({ collection: 'posts', bookmark: 'Editors', roleId: 'editor' });
    await preset({ collection: 'posts', bookmark: 'Viewers', roleId: 'viewer' });
    const res = await ok('GET', '/api/v1/presets/bookmarks?collection=posts', undefined, { as: alice });
    expect(res.map((b: { bookmark: string; sourceScope: string }) => [b.bookmark, b.sourceScope])).toEqual([
      ['Mine', 'user'],
      ['Team', 'role'],
      ['Editors', 'role'],
      ['Everyone', 'global'],
    ]);
    const bobs = await ok('GET', '/api/v1/presets/bookmarks?collection=posts', undefined, { as: bob });
    expect(bobs.map((b: { bookmark: string }) => b.bookmark)).toEqual(['Team', 'Editors', 'Everyone']);
    const taken = await call(
      'POST',
      '/api/v1/presets',
      { collection: 'posts', userId: aliceId, bookmark: 'Mine' },
      { as: alice },
    );
    expect(taken.statusCode).toBe(409);
    expect(firstError(taken.body).code).toBe('CONFLICT');
  });
});

describe('who manages which presets', () => {
  it('refuses a role or global preset, or one for another user, to a non-admin with 403 PERMISSION_DENIED', async () => {
    for (const body of [
      { collection: 'posts', roleId: roles.leaf, bookmark: 'x' },
      { collection: 'posts', scope: 'global', bookmark: 'x' },
      { collection: 'posts', userId: aliceId, bookmark: 'x' },
    ]) {
      const res = await call('POST', '/api/v1/presets', body, { as: bob });
      expect(res.statusCode, res.body).toBe(403);
      expect(firstError(res.body).code).toBe('PERMISSION_DENIED');
    }
  });

  it('refuses a PATCH that moves an own preset into the global scope, or that changes a global one', async () => {
    const own = await preset({ collection: 'posts', userId: bobId, bookmark: 'Moving' }, bob);
    const move = await call('PATCH', `/api/v1/presets/${own.id}`, { scope: 'global' }, { as: bob });
    expect(move.statusCode, move.body).toBe(403);
    expect(firstError(move.body).code).toBe('PERMISSION_DENIED');
    const global = await preset({ collection: 'posts', scope: 'global', bookmark: 'Fixed' });
    for (const [method, body] of [
      ['PATCH', { layout: 'cards' }],
      ['DELETE', undefined],
    ] as const) {
      const res = await call(method, `/api/v1/presets/${global.id}`, body, { as: bob });
      expect(res.statusCode, res.body).toBe(403);
    }
    const renamed = await ok('PATCH', `/api/v1/presets/${own.id}`, { bookmark: 'Moved', layout: 'cards' }, { as: bob });
    expect(renamed).toMatchObject({ bookmark: 'Moved', layout: 'cards', sourceScope: 'user' });
    expect(await ok('PATCH', `/api/v1/presets/${own.id}`, { scope: 'global' })).toMatchObject({
      sourceScope: 'global',
    });
  });

  it("answers 404 to a user addressing another user's preset, and never lists it", async () => {
    const mine = await preset({ collection: 'posts', userId: aliceId, bookmark: 'Private' }, alice);
    for (const [method, body] of [
      ['PATCH', { layout: 'cards' }],
      ['DELETE', undefined],
    ] as const) {
      const res = await call(method, `/api/v1/presets/${mine.id}`, body, { as: bob });
      expect(res.statusCode, res.body).toBe(404);
      expect(firstError(res.body).code).toBe('NOT_FOUND');
    }
    const listed = await ok('GET', '/api/v1/presets?collection=posts', undefined, { as: bob });
    expect(listed.map((p: { id: string }) => p.id)).not.toContain(mine.id);
    const all = await ok('GET', `/api/v1/presets?userId=${aliceId}`);
    expect(all.map((p: { id: string }) => p.id)).toContain(mine.id);
    // A site admin manages anyone's.
    expect(await ok('PATCH', `/api/v1/presets/${mine.id}`, { layout: 'map' })).toMatchObject({ userId: aliceId });
  });
});

describe('POST /api/v1/presets ownership (userId: user scope, roleId: role scope, neither: global)', () => {
  const viewerOf = async () => {
    const viewer = await createUser(t, 'vera@example.com', 'Vera-pass-1618!', { main: 'viewer' });
    return { viewer, viewerId: (await ok('GET', '/api/v1/auth/me', undefined, { as: viewer })).id as string };
  };
  let vera: { viewer: string; viewerId: string };
  beforeAll(async () => {
    vera = await viewerOf();
  }, 60_000);

  it("refuses a viewer's preset that names no owner (a global one) with 403 PERMISSION_DENIED", async () => {
    for (const body of [
      { collection: 'posts', bookmark: 'Everyone of vera' },
      { collection: 'posts' },
      { collection: 'posts', scope: 'global', bookmark: 'Explicitly global' },
    ]) {
      const res = await call('POST', '/api/v1/presets', body, { as: vera.viewer });
      expect(res.statusCode, res.body).toBe(403);
      expect(firstError(res.body)).toMatchObject({ code: 'PERMISSION_DENIED', extensions: { reason: 'preset_scope' } });
    }
  });

  it("makes an administrator's preset without an owner global (201), and shows it to the others", async () => {
    const made = await preset({ collection: 'posts', bookmark: 'House view' });
    expect(made).toMatchObject({ userId: null, roleId: null, sourceScope: 'global' });
    for (const as of [vera.viewer, alice, carol]) {
      const marks = await ok('GET', '/api/v1/presets/bookmarks?collection=posts', undefined, { as });
      expect(
        marks.find((m: { id: string }) => m.id === made.id),
        'seen by every member',
      ).toMatchObject({
        sourceScope: 'global',
      });
    }
    await ok('DELETE', `/api/v1/presets/${made.id}`);
  });

  it('saves a preset that names the caller as its user in user scope (201)', async () => {
    const made = await preset({ collection: 'posts', userId: vera.viewerId, bookmark: 'Vera only' }, vera.viewer);
    expect(made).toMatchObject({ userId: vera.viewerId, roleId: null, sourceScope: 'user' });
    const theirs = await ok('GET', '/api/v1/presets/bookmarks?collection=posts', undefined, { as: bob });
    expect(theirs.map((m: { id: string }) => m.id)).not.toContain(made.id);
    await ok('DELETE', `/api/v1/presets/${made.id}`, undefined, { as: vera.viewer });
  });

  it("refuses a viewer's preset for another user with 403 PERMISSION_DENIED; an administrator may make it", async () => {
    const res = await call(
      'POST',
      '/api/v1/presets',
      { collection: 'posts', userId: aliceId, bookmark: 'For alice' },
      { as: vera.viewer },
    );
    expect(res.statusCode, res.body).toBe(403);
    expect(firstError(res.body).code).toBe('PERMISSION_DENIED');
    const made = await preset({ collection: 'posts', userId: aliceId, bookmark: 'For alice' });
    expect(made).toMatchObject({ userId: aliceId, sourceScope: 'user' });
    await ok('DELETE', `/api/v1/presets/${made.id}`);
  });

  it('refuses an explicit scope that disagrees with the owner the body names with 400 and a path', async () => {
    for (const [body, path] of [
      [{ collection: 'posts', scope: 'user', bookmark: 'x' }, ['userId']],
      [{ collection: 'posts', scope: 'global', userId: vera.viewerId, bookmark: 'x' }, ['userId']],
      [{ collection: 'posts', scope: 'role', userId: vera.viewerId, bookmark: 'x' }, ['userId']],
      [{ collection: 'posts', scope: 'user', roleId: 'viewer', bookmark: 'x' }, ['roleId']],
    ] as const) {
      const res = await call('POST', '/api/v1/presets', body, { as: vera.viewer });
      expect(res.statusCode, res.body).toBe(400);
      expect(firstError(res.body)).toMatchObject({ code: 'VALIDATION_FAILED', path });
    }
    const agreed = { collection: 'posts', scope: 'user', userId: vera.viewerId, bookmark: 'Agreed' };
    const made = await preset(agreed, vera.viewer);
    expect(made).toMatchObject({ userId: vera.viewerId, sourceScope: 'user' });
    await ok('DELETE', `/api/v1/presets/${made.id}`, undefined, { as: vera.viewer });
  });
});

describe('POST /api/v1/presets validation', () => {
  const nested = (depth: number): Record<string, unknown> =>
    depth === 0 ? { title: { _eq: 'x' } } : { _and: [nested(depth - 1)] };
  it.each([
    ['an unknown collection', { collection: 'nope' }, ['collection']],
    ['an unknown field', { collection: 'posts', query: { fields: ['title', 'nope'] } }, ['query', 'fields', '1']],
    ['an unknown sort field', { collection: 'posts', query: { sort: ['-nope'] } }, ['query', 'sort', '0']],
    ['a limit over 200', { collection: 'posts', query: { limit: 201 } }, ['body', 'query', 'limit']],
    ['a user and a role', { collection: 'posts', userId: 'a', roleId: 'b' }, ['body', 'roleId']],
    ['an unknown role', { collection: 'posts', roleId: 'nope' }, ['roleId']],
    [
      'an unknown filter field',
      { collection: 'posts', query: { filter: { nope: { _eq: 1 } } } },
      ['query', 'filter', 'nope'],
    ],
    ['a filter nested past depth 8', { collection: 'posts', query: { filter: nested(9) } }, null],
    [
      'a JSON path past depth 8',
      { collection: 'posts', query: { filter: { 'meta.a.b.c.d.e.f.g.h': { _eq: 1 } } } },
      null,
    ],
    [
      '101 clauses',
      {
        collection: 'posts',
        query: { filter: { _and: Array.from({ length: 101 }, () => ({ title: { _eq: 'x' } })) } },
      },
      null,
    ],
    ['a huge layoutOptions', { collection: 'posts', layoutOptions: { a: 'x'.repeat(17_000) } }, ['layoutOptions']],
    ['a bad layout name', { collection: 'posts', layout: '../x' }, ['body', 'layout']],
    ['an unknown key', { collection: 'posts', extra: 1 }, ['body', 'extra']],
  ])('refuses %s with 400 VALIDATION_FAILED', async (_, body, path) => {
    const res = await call('POST', '/api/v1/presets', { bookmark: 'v', ...body }, { as: admin });
    expect(res.statusCode, res.body).toBe(400);
    const e = firstError(res.body);
    expect(e.code).toBe('VALIDATION_FAILED');
    if (path) expect(e.path).toEqual(path);
  });

  it('accepts 100 clauses and a filter 4 levels deep', async () => {
    const clauses = Array.from({ length: 100 }, () => ({ title: { _eq: 'x' } }));
    await preset({ collection: 'posts', bookmark: 'Wide', query: { filter: { _and: clauses } } });
    await preset({ collection: 'posts', bookmark: 'Deep', query: { filter: nested(4) } });
  });

  it('refuses a user of another site as owner', async () => {
    const eve = (await ok('GET', '/api/v1/auth/me', undefined, { as: otherAdmin, site: 'other' })).id;
    const res = await call('POST', '/api/v1/presets', { collection: 'posts', userId: eve, bookmark: 'x' });
    expect(res.statusCode, res.body).toBe(400);
    expect(firstError(res.body)).toMatchObject({ code: 'VALIDATION_FAILED', path: ['userId'] });
  });

  it.each([
    ['filter', `{"collection":"posts","bookmark":"p","query":{"filter":{"__proto__":{"_eq":1}}}}`],
    ['filter', `{"collection":"posts","bookmark":"p","query":{"filter":{"_and":[{"constructor":{"_eq":1}}]}}}`],
    ['layoutOptions', `{"collection":"posts","bookmark":"p","layoutOptions":{"a":{"__proto__":{"polluted":true}}}}`],
    ['layoutOptions', `{"collection":"posts","bookmark":"p","layoutOptions":{"prototype":{"polluted":true}}}`],
  ])('refuses a prototype key in %s with 400', async (_, raw) => {
    const res = await t.call({
      method: 'POST',
      url: '/api/v1/presets',
      as: bob,
      site: 'main',
      headers: { 'content-type': 'application/json' },
      // Bob's own preset, so the body's keys are what is refused (a preset without an owner is an administrator's).
      payload: raw.replace('"collection":"posts"', `"collection":"posts","userId":"${bobId}"`),
    });
    expect(res.statusCode, res.body).toBe(400);
    expect(firstError(res.body).code).toBe('VALIDATION_FAILED');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

describe('when the schema changes', () => {
  const dump = async () =>
    JSON.stringify(await ok('GET', '/api/v1/presets?limit=200')) +
    JSON.stringify(await ok('GET', '/api/v1/presets?limit=200', undefined, { site: 'other' }));

  it('drops a deleted field from fields and sort and flags a filter or layout that names it, also after a rebuild', async () => {
    await ok('POST', '/api/v1/fields/posts', { field: 'rank', type: 'integer' });
    const filtered = await preset({
      collection: 'posts',
      bookmark: 'By rank',
      query: { fields: ['title', 'rank'], sort: ['-rank', 'title'], filter: { rank: { _gt: 1 } } },
    });
    const listed = await preset({
      collection: 'posts',
      bookmark: 'Ranked',
      query: { fields: ['rank'], sort: ['rank'] },
    });
    const laidOut = await preset({
      collection: 'posts',
      bookmark: 'Wide rank',
      layoutOptions: { widths: { rank: 90 } },
    });
    await ok('DELETE', '/api/v1/fields/posts/rank');
    const read = async (id: string) =>
      (await ok('GET', '/api/v1/presets?collection=posts&limit=200')).find((p: { id: string }) => p.id === id);
    expect(await read(filtered.id)).toMatchObject({
      query: { fields: ['title'], sort: ['title'], filter: { rank: { _gt: 1 } } },
      stale: true,
      staleFields: ['rank'],
    });
    expect(await read(listed.id)).toMatchObject({ query: { fields: null, sort: null }, stale: false, staleFields: [] });
    expect(await read(laidOut.id)).toMatchObject({ stale: true, staleFields: ['rank'] });

    const live = await dump();
    await t.deps.engine.rebuild('presets');
    expect(await dump()).toEqual(live);

    const fixed = await ok('PATCH', `/api/v1/presets/${filtered.id}`, { query: { fields: ['title'] } });
    expect(fixed).toMatchObject({ stale: false, staleFields: [], query: { fields: ['title'], filter: null } });
  }, 120_000);

  it("flags a deleted collection's presets stale", async () => {
    await ok('POST', '/api/v1/collections', { name: 'drafts' });
    const p = await preset({ collection: 'drafts', bookmark: 'All drafts' });
    await ok('DELETE', '/api/v1/collections/drafts');
    const all = await ok('GET', '/api/v1/presets?collection=drafts');
    expect(all.find((x: { id: string }) => x.id === p.id)).toMatchObject({ stale: true });
  });
});

describe('across sites', () => {
  it("never shows or changes site main's presets from site other", async () => {
    const a = await preset({ collection: 'posts', bookmark: 'Main only', scope: 'global' });
    const b = await preset({ collection: 'posts', bookmark: 'Other only', scope: 'global' }, otherAdmin, 'other');
    for (const as of [otherAdmin, otherEditor]) {
      const list = await ok('GET', '/api/v1/presets?limit=200', undefined, { as, site: 'other' });
      expect(list.map((p: { id: string }) => p.id)).not.toContain(a.id);
      expect(list.map((p: { id: string }) => p.id)).toContain(b.id);
      const marks = await ok('GET', '/api/v1/presets/bookmarks?collection=posts', undefined, { as, site: 'other' });
      expect(marks.map((p: { id: string }) => p.id)).toEqual([b.id]);
      for (const [method, body] of [
        ['PATCH', { layout: 'cards' }],
        ['DELETE', undefined],
      ] as const) {
        const res = await call(method, `/api/v1/presets/${a.id}`, body, { as, site: 'other' });
        expect(res.statusCode, res.body).toBe(404);
      }
    }
    const main = await ok('GET', '/api/v1/presets?limit=200');
    expect(main.map((p: { id: string }) => p.id)).not.toContain(b.id);
    expect(main.find((p: { id: string }) => p.id === a.id)).toMatchObject({ layout: null });
  }, 120_000);

  it('keeps views of a collection from those who may not read it', async () => {
    const loner = (await ok('POST', '/api/v1/roles', { name: 'Loner' })).id;
    const dan = await createUser(t, 'dan@example.com', 'Dan-pass-1618!', { main: loner });
    const danId = (await ok('GET', '/api/v1/auth/me', undefined, { as: dan })).id;
    const body = { collection: 'posts', userId: danId, bookmark: 'mine' };
    const made = await call('POST', '/api/v1/presets', body, { as: dan });
    expect(made.statusCode, made.body).toBe(403);
    expect(firstError(made.body).code).toBe('PERMISSION_DENIED');
    expect((await call('GET', '/api/v1/presets/effective?collection=posts', undefined, { as: dan })).statusCode).toBe(
      403,
    );
    expect((await call('GET', '/api/v1/presets/bookmarks?collection=posts', undefined, { as: dan })).statusCode).toBe(
      403,
    );
  }, 60_000);

  it('answers a non-member as the rest of the API does (403)', async () => {
    const ours = await call('GET', '/api/v1/presets', undefined, { as: otherAdmin });
    const theirs = await call('GET', '/api/v1/webhooks', undefined, { as: otherAdmin });
    expect(ours.statusCode).toBe(theirs.statusCode);
    expect(firstError(ours.body).code).toBe(firstError(theirs.body).code);
  });
});
