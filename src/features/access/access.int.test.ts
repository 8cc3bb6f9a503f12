import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/setup/app.ts';
import { createUser } from '../../../test/setup/users.ts';

let t: TestApp;
let admin: string;
const PASSWORD = 'Access-pass-3141!';
type Method = 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';
const call = (as: string, method: Method, url: string, payload?: object, site = 'main') =>
  t.call({ method, url, payload, as, site });
const ok = async (as: string, method: Method, url: string, payload?: object, site = 'main') => {
  const res = await call(as, method, url, payload, site);
  expect(res.statusCode, res.body).toBeLessThan(300);
  return res.statusCode === 204 ? null : res.json();
};

let authorRole: string;
let policy: string;
let alice: string;
let aliceId: string;
let bob: string;

beforeAll(async () => {
  t = await createTestApp();
  admin = await t.setup();
  await ok(admin, 'POST', '/api/v1/sites', { id: 'other', name: 'Other' });
  await ok(admin, 'POST', '/api/v1/collections', { name: 'writers' });
  await ok(admin, 'POST', '/api/v1/fields/writers', { field: 'name', type: 'string' });
  await ok(admin, 'POST', '/api/v1/fields/writers', { field: 'email', type: 'string' });
  await ok(admin, 'POST', '/api/v1/collections', { name: 'posts' });
  for (const [field, type] of [
    ['title', 'string'],
    ['secret', 'string'],
    ['views', 'integer'],
    ['writer', 'string'],
  ])
    await ok(admin, 'POST', '/api/v1/fields/posts', { field, type });
  await ok(admin, 'POST', '/api/v1/relations', {
    kind: 'm2o',
    collection: 'posts',
    field: 'writer',
    target: 'writers',
  });
  authorRole = (await ok(admin, 'POST', '/api/v1/roles', { name: 'Author' })).data.id;
  policy = (await ok(admin, 'POST', '/api/v1/policies', { name: 'Own posts' })).data.id;
  const rule = (body: object) => ok(admin, 'POST', `/api/v1/policies/${policy}/permissions`, body);
  const own = { created_by: { _eq: '$CURRENT_USER' } };
  await rule({ collection: 'posts', action: 'read', fields: ['title', 'status', 'views', 'writer'], conditions: own });
  await rule({ collection: 'posts', action: 'update', fields: ['title'], conditions: own });
  await rule({
    collection: 'posts',
    action: 'create',
    fields: ['title', 'status', 'views', 'writer'],
    presets: { status: 'draft' },
    validation: { status: { _in: ['draft', 'review'] } },
  });
  await ok(admin, 'POST', `/api/v1/policies/${policy}/attach`, { role: authorRole });
  alice = await createUser(t, 'alice@example.com', PASSWORD, { main: authorRole });
  bob = await createUser(t, 'bob@example.com', PASSWORD, { main: authorRole });
  aliceId = (await ok(alice, 'GET', '/api/v1/auth/me')).data.id;
  await ok(admin, 'POST', '/api/v1/items/writers', [
    { id: 'w1', name: 'Wanda', email: 'wanda@example.com' },
    { id: 'w2', name: 'Walt', email: 'walt@example.com' },
  ]);
  await ok(admin, 'POST', '/api/v1/items/posts', { id: 'admin-post', title: 'By admin', secret: 's', views: 1 });
  await ok(alice, 'POST', '/api/v1/items/posts', { id: 'a1', title: 'Alice one', views: 10 });
  // Alice may not read writers, so she may not name one (422); an administrator links her post to its writer.
  await ok(admin, 'PATCH', '/api/v1/items/posts/a1', { writer: 'w1' });
  await ok(alice, 'POST', '/api/v1/items/posts', { id: 'a2', title: 'Alice two', views: 20 });
  await ok(bob, 'POST', '/api/v1/items/posts', { id: 'b1', title: 'Bob one', views: 30 });
});
afterAll(() => t.close());

describe('roles', () => {
  it('lists system and custom roles, refuses cycles, duplicate names, system role edits and held-role deletes', async () => {
    const roles = (await ok(admin, 'GET', '/api/v1/roles')).data.map((r: { id: string }) => r.id);
    expect(roles).toEqual(
      expect.arrayContaining(['admin', 'site_admin', 'editor', 'viewer', 'subscriber', 'public', authorRole]),
    );
    const child = (await ok(admin, 'POST', '/api/v1/roles', { name: 'Senior author', parentId: authorRole })).data.id;
    const cycle = await call(admin, 'PATCH', `/api/v1/roles/${authorRole}`, { parentId: child });
    expect(cycle.statusCode).toBe(400);
    expect(cycle.json().errors[0].path).toEqual(['parentId']);
    expect((await call(admin, 'POST', '/api/v1/roles', { name: 'author' })).statusCode).toBe(409);
    expect((await call(admin, 'POST', '/api/v1/roles', { name: 'x', parentId: 'nope' })).statusCode).toBe(400);
    expect((await call(admin, 'PATCH', '/api/v1/roles/editor', { name: 'Boss' })).statusCode).toBe(403);
    expect((await call(admin, 'DELETE', `/api/v1/roles/${authorRole}`)).statusCode).toBe(409);
    expect((await call(admin, 'DELETE', `/api/v1/roles/${child}`)).statusCode).toBe(204);
    expect((await call(admin, 'GET', `/api/v1/roles/${authorRole}`, undefined, 'other')).statusCode).toBe(404);
  });

  it('does not let a site admin make a role under admin, nor an editor manage roles', async () => {
    const siteAdmin = await createUser(t, 'sa@example.com', PASSWORD, { main: 'site_admin' });
    const editor = await createUser(t, 'ed@example.com', PASSWORD, { main: 'editor' });
    expect((await call(siteAdmin, 'POST', '/api/v1/roles', { name: 'Shadow', parentId: 'admin' })).statusCode).toBe(
      403,
    );
    expect((await call(siteAdmin, 'POST', '/api/v1/roles', { name: 'Helper', parentId: 'editor' })).statusCode).toBe(
      201,
    );
    expect((await call(editor, 'GET', '/api/v1/roles')).statusCode).toBe(403);
    expect((await call(editor, 'POST', '/api/v1/policies', { name: 'x' })).statusCode).toBe(403);
  });
});

describe('permission rules', () => {
  it('refuses unknown collections, fields, presets and conditions with 400 naming the path', async () => {
    const add = (body: object) => call(admin, 'POST', `/api/v1/policies/${policy}/permissions`, body);
    expect((await add({ collection: 'nope', action: 'read' })).json().errors[0].path).toEqual(['collection']);
    expect(
      (await add({ collection: 'posts', action: 'read', fields: ['title', 'nope'] })).json().errors[0].path,
    ).toEqual(['fields', '1']);
    expect((await add({ collection: 'posts', action: 'create', presets: { nope: 1 } })).json().errors[0].path).toEqual([
      'presets',
      'nope',
    ]);
    const cond = await add({ collection: 'posts', action: 'read', conditions: { nope: { _eq: 1 } } });
    expect(cond.statusCode).toBe(400);
    expect(cond.json().errors[0].path[0]).toBe('conditions');
    expect((await add({ collection: 'posts', action: 'publish' })).statusCode).toBe(400);
  });
});

describe('enforcement on items', () => {
  it('lists only rows inside the conditions, counts only those, and hides fields outside the rule', async () => {
    const res = await ok(alice, 'GET', '/api/v1/items/posts?sort=title&meta=*');
    expect(res.data.map((p: { id: string }) => p.id)).toEqual(['a1', 'a2']);
    expect(res.meta).toMatchObject({ total: 2, filter_count: 2 });
    expect(res.data[0]).not.toHaveProperty('secret');
    expect(res.data[0].title).toBe('Alice one');
    const agg = await ok(alice, 'GET', '/api/v1/items/posts?aggregate[sum]=views&aggregate[count]=*');
    expect(agg.data[0]).toMatchObject({ count: 2, sum: { views: 30 } });
    const asked = await ok(alice, 'GET', '/api/v1/items/posts?fields=id,secret,title');
    expect(asked.data.every((p: object) => !('secret' in p))).toBe(true);
  });

  it('refuses to filter, sort or aggregate by a hidden field', async () => {
    for (const q of ['filter[secret][_eq]=s', 'sort=secret', 'aggregate[max]=secret', 'groupBy=secret']) {
      const res = await call(alice, 'GET', `/api/v1/items/posts?${q}`);
      expect(res.statusCode, q).toBe(403);
      expect(res.json().errors[0].code).toBe('PERMISSION_DENIED');
    }
  });

  it('answers 404 for a row outside the conditions on read, and 403 on write', async () => {
    expect((await call(alice, 'GET', '/api/v1/items/posts/b1')).statusCode).toBe(404);
    expect((await call(alice, 'GET', '/api/v1/items/posts/b1/revisions')).statusCode).toBe(404);
    expect((await call(alice, 'PATCH', '/api/v1/items/posts/b1', { title: 'Mine now' })).statusCode).toBe(403);
    expect((await ok(admin, 'GET', '/api/v1/items/posts/b1')).data.title).toBe('Bob one');
  });

  it('names the field a rule does not let the caller write', async () => {
    const res = await call(alice, 'PATCH', '/api/v1/items/posts/a1', { title: 'Renamed', views: 99 });
    expect(res.statusCode).toBe(403);
    expect(res.json().errors[0]).toMatchObject({ code: 'PERMISSION_DENIED', path: ['views'] });
    expect((await ok(alice, 'PATCH', '/api/v1/items/posts/a1', { title: 'Renamed' })).data.title).toBe('Renamed');
    expect((await call(alice, 'DELETE', '/api/v1/items/posts/a1')).statusCode).toBe(403);
  });

  it('applies presets and validation on create', async () => {
    const created = await ok(alice, 'POST', '/api/v1/items/posts', { title: 'Preset' });
    expect(created.data.status).toBe('draft');
    const invalid = await call(alice, 'POST', '/api/v1/items/posts', { title: 'Live', status: 'published' });
    expect(invalid.statusCode).toBe(400);
    expect(invalid.json().errors[0].extensions.reason).toBe('permission_validation');
    const hidden = await call(alice, 'POST', '/api/v1/items/posts', { title: 'x', secret: 'y' });
    expect(hidden.json().errors[0]).toMatchObject({ code: 'PERMISSION_DENIED', path: ['secret'] });
  });

  it('guards related collections: rows and fields of a relation need their own read rule', async () => {
    const none = await ok(alice, 'GET', '/api/v1/items/posts/a1?fields=title,writer.name');
    expect(none.data.writer).toBeNull();
    expect((await call(alice, 'GET', '/api/v1/items/posts?filter[writer][name][_eq]=Wanda')).statusCode).toBe(403);
    const readWriters = (await ok(admin, 'POST', '/api/v1/policies', { name: 'Writers' })).data.id;
    await ok(admin, 'POST', `/api/v1/policies/${readWriters}/permissions`, {
      collection: 'writers',
      action: 'read',
      fields: ['name'],
      conditions: { id: { _eq: 'w1' } },
    });
    await ok(admin, 'POST', `/api/v1/policies/${readWriters}/attach`, { user: aliceId });
    const some = await ok(alice, 'GET', '/api/v1/items/posts/a1?fields=title,writer.name,writer.email');
    expect(some.data.writer).toEqual({ id: 'w1', name: 'Wanda' });
    const filtered = await ok(alice, 'GET', '/api/v1/items/posts?filter[writer][name][_eq]=Wanda');
    expect(filtered.data.map((p: { id: string }) => p.id)).toEqual(['a1']);
    expect((await call(alice, 'GET', '/api/v1/items/posts?filter[writer][email][_eq]=x')).statusCode).toBe(403);
    expect((await ok(alice, 'GET', '/api/v1/items/writers')).data.map((w: { id: string }) => w.id)).toEqual(['w1']);
    // Bob has no such policy.
    expect((await call(bob, 'GET', '/api/v1/items/writers')).statusCode).toBe(403);
  });

  it('gives team members the team policies', async () => {
    const carol = await createUser(t, 'carol@example.com', PASSWORD, { main: 'viewer' });
    const carolId = (await ok(carol, 'GET', '/api/v1/auth/me')).data.id;
    expect((await call(carol, 'POST', '/api/v1/items/writers', { name: 'No' })).statusCode).toBe(403);
    const team = (await ok(admin, 'POST', '/api/v1/teams', { name: 'Desk', members: [carolId] })).data.id;
    const p = (await ok(admin, 'POST', '/api/v1/policies', { name: 'Desk writes writers' })).data.id;
    await ok(admin, 'POST', `/api/v1/policies/${p}/permissions`, { collection: 'writers', action: 'create' });
    await ok(admin, 'POST', `/api/v1/policies/${p}/attach`, { team });
    expect((await call(carol, 'POST', '/api/v1/items/writers', { name: 'Yes' })).statusCode).toBe(201);
    await ok(admin, 'PATCH', `/api/v1/teams/${team}`, { removeMembers: [carolId] });
    expect((await call(carol, 'POST', '/api/v1/items/writers', { name: 'No again' })).statusCode).toBe(403);
    const outsider = await call(admin, 'POST', '/api/v1/teams', { name: 'Bad', members: ['nobody'] });
    expect(outsider.statusCode).toBe(400);
  });
});

describe('permissions/me and permissions/check', () => {
  it('shows the effective matrix and evaluates a rule against an item', async () => {
    const me = (await ok(alice, 'GET', '/api/v1/permissions/me')).data;
    expect(me.role).toBe(authorRole);
    expect(me.admin).toBe(false);
    expect(me.collections.posts.read).toMatchObject({ conditions: { created_by: { _eq: aliceId } } });
    expect(me.collections.posts.delete).toBe(false);
    const mine = await ok(alice, 'POST', '/api/v1/permissions/check', {
      collection: 'posts',
      action: 'update',
      itemId: 'a2',
    });
    expect(mine.data.allowed).toBe(true);
    const theirs = await ok(alice, 'POST', '/api/v1/permissions/check', {
      collection: 'posts',
      action: 'update',
      itemId: 'b1',
    });
    expect(theirs.data.allowed).toBe(false);
    expect(
      (await call(alice, 'POST', '/api/v1/permissions/check', { collection: 'posts', action: 'read', userId: 'x' }))
        .statusCode,
    ).toBe(403);
    const forAlice = await ok(admin, 'POST', '/api/v1/permissions/check', {
      collection: 'posts',
      action: 'read',
      itemId: 'a1',
      userId: aliceId,
    });
    expect(forAlice.data.allowed).toBe(true);
    expect((await ok(admin, 'GET', '/api/v1/permissions/me')).data.admin).toBe(true);
  });
});

describe('subscriber access', () => {
  it('grants subscribers read on a collection, published rows only, until revoked', async () => {
    const sub = await createUser(t, 'sub@example.com', PASSWORD, { main: 'subscriber' });
    await ok(admin, 'POST', '/api/v1/items/posts', { id: 'pub', title: 'Published', status: 'published' });
    expect((await call(sub, 'GET', '/api/v1/items/posts')).statusCode).toBe(403);
    await ok(admin, 'POST', '/api/v1/users/subscriber-access', { collection: 'posts', fields: ['title', 'status'] });
    const seen = await ok(sub, 'GET', '/api/v1/items/posts');
    expect(seen.data).toEqual([expect.objectContaining({ id: 'pub', title: 'Published' })]);
    expect(seen.data[0]).not.toHaveProperty('views');
    expect((await ok(admin, 'GET', '/api/v1/users/subscriber-access')).data).toEqual([
      { collection: 'posts', publishedOnly: true, fields: ['title', 'status'] },
    ]);
    await ok(admin, 'DELETE', '/api/v1/users/subscriber-access/posts');
    expect((await call(sub, 'GET', '/api/v1/items/posts')).statusCode).toBe(403);
    expect((await call(admin, 'DELETE', '/api/v1/users/subscriber-access/posts')).statusCode).toBe(404);
    expect((await call(admin, 'POST', '/api/v1/users/subscriber-access', { collection: 'nope' })).statusCode).toBe(400);
  });
});

describe('publishable keys', () => {
  it('read through the grants of their role; the list adds no published-only filter of its own', async () => {
    const created = await ok(admin, 'POST', '/api/v1/api-keys', {
      name: 'Website',
      roleKey: 'public',
      publishable: true,
      allowedOrigins: ['https://www.example.com'],
    });
    const key = created.data.key as string;
    const read = () =>
      t.call({
        method: 'GET',
        url: '/api/v1/items/posts?sort=title',
        headers: { authorization: `Bearer ${key}`, origin: 'https://www.example.com' },
        site: 'main',
      });
    expect((await read()).statusCode).toBe(403);
    const grant = (await ok(admin, 'POST', '/api/v1/policies', { name: 'Public posts' })).data.id;
    await ok(admin, 'POST', `/api/v1/policies/${grant}/permissions`, {
      collection: 'posts',
      action: 'read',
      fields: ['title', 'status'],
      conditions: { status: { _eq: 'published' } },
    });
    await ok(admin, 'POST', `/api/v1/policies/${grant}/attach`, { role: 'public' });
    await ok(admin, 'POST', '/api/v1/items/posts', { id: 'live', title: 'Live post', status: 'published' });
    const res = await read();
    expect(res.statusCode).toBe(200);
    // Only the published rows of every author (a1, a2, b1 … are drafts).
    expect(res.json().data.map((p: { id: string }) => p.id)).toEqual(['live', 'pub']);
    expect(res.json().data[0]).not.toHaveProperty('views');
  });
});
