import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/setup/app.ts';
import { createUser } from '../../../test/setup/users.ts';

let t: TestApp;
let admin: string;
/** Role "Author" on main: reads its own rows and shared ones, updates and deletes only its own. */
let alice: string;
/** A member of another site only. */
let mallory: string;
const PASSWORD = 'Items-perm-2718!';
type Method = 'GET' | 'POST' | 'PATCH' | 'DELETE';
const call = (as: string, method: Method, url: string, payload?: object, site = 'main') =>
  t.call({ method, url, payload, as, site });
const ok = async (as: string, method: Method, url: string, payload?: object) => {
  const res = await call(as, method, url, payload);
  expect(res.statusCode, `${method} ${url}: ${res.body}`).toBeLessThan(300);
  return res.statusCode === 204 ? null : res.json();
};

/** A refusal that carries no data: 404 (or 403) in the envelope, never a record. */
const refused = (res: { statusCode: number; body: string }, code = 'RECORD_NOT_FOUND') => {
  expect(res.statusCode, res.body).toBe(code === 'PERMISSION_DENIED' ? 403 : 404);
  expect(JSON.parse(res.body)).toEqual({ errors: [expect.objectContaining({ code })] });
};
const foreign = (res: { statusCode: number; body: string }) => {
  expect([403, 404], res.body).toContain(res.statusCode);
  expect(JSON.parse(res.body).data).toBeUndefined();
};

beforeAll(async () => {
  t = await createTestApp({ env: { ENCRYPTION_KEY: randomBytes(32).toString('base64') } });
  admin = await t.setup();
  await ok(admin, 'POST', '/api/v1/sites', { id: 'other', name: 'Other' });
  const fields = async (c: string, list: [string, string, object?][]) => {
    await ok(admin, 'POST', '/api/v1/collections', { name: c });
    for (const [field, type, extra] of list) await ok(admin, 'POST', `/api/v1/fields/${c}`, { field, type, ...extra });
  };
  await fields('articles', [
    ['title', 'string'],
    ['secret', 'string'],
  ]);
  await fields('people', [
    ['name', 'string'],
    ['ssn', 'string', { encrypted: true }],
    ['friend', 'string'],
  ]);
  await fields('authors', [['name', 'string']]);
  await fields('books', [
    ['title', 'string'],
    ['author', 'string'],
  ]);
  await ok(admin, 'POST', '/api/v1/relations', {
    kind: 'm2o',
    collection: 'people',
    field: 'friend',
    target: 'people',
  });
  await ok(admin, 'POST', '/api/v1/relations', {
    kind: 'm2o',
    collection: 'books',
    field: 'author',
    target: 'authors',
  });
  const role = (await ok(admin, 'POST', '/api/v1/roles', { name: 'Author' })).data.id;
  const policy = (await ok(admin, 'POST', '/api/v1/policies', { name: 'Own rows' })).data.id;
  const rule = (body: object) => ok(admin, 'POST', `/api/v1/policies/${policy}/permissions`, body);
  const own = { created_by: { _eq: '$CURRENT_USER' } };
  await rule({
    collection: 'articles',
    action: 'read',
    fields: ['title', 'status'],
    conditions: { _or: [own, { status: { _eq: 'shared' } }] },
  });
  await rule({ collection: 'articles', action: 'update', fields: ['title', 'status'], conditions: own });
  await rule({ collection: 'articles', action: 'create', fields: ['title', 'status'] });
  await rule({ collection: 'people', action: 'read', fields: ['*'] });
  await rule({ collection: 'people', action: 'update', fields: ['*'], conditions: own });
  await rule({ collection: 'people', action: 'create', fields: ['*'] });
  await rule({ collection: 'authors', action: 'read', fields: ['*'] });
  await rule({ collection: 'authors', action: 'delete', fields: ['*'] });
  for (const action of ['read', 'update', 'delete'])
    await rule({ collection: 'books', action, fields: ['*'], conditions: own });
  await rule({ collection: 'books', action: 'create', fields: ['*'] });
  await ok(admin, 'POST', `/api/v1/policies/${policy}/attach`, { role });
  alice = await createUser(t, 'alice@example.com', PASSWORD, { main: role });
  mallory = await createUser(t, 'mallory@example.com', PASSWORD, { other: 'editor' });
});
afterAll(() => t.close());

describe('named versions under row and field rules', () => {
  const v = (id: string, path = '') => `/api/v1/items/articles/${id}/versions${path}`;
  beforeAll(async () => {
    await ok(admin, 'POST', '/api/v1/items/articles', [
      { id: 'hidden', title: 'Public title', secret: 'S' },
      { id: 'shared', title: 'Shared', status: 'shared' },
    ]);
    await ok(alice, 'POST', '/api/v1/items/articles', { id: 'mine', title: 'Mine' });
    for (const id of ['hidden', 'shared', 'mine']) await ok(admin, 'POST', v(id), { key: 'draft', name: 'Draft' });
    await ok(admin, 'PATCH', v('hidden', '/draft'), { data: { title: 'Hidden draft title' } });
    await ok(admin, 'PATCH', v('mine', '/draft'), { data: { title: 'New', secret: 'draft secret' } });
  });

  it('answers 404 RECORD_NOT_FOUND on every version route for an item outside the read conditions', async () => {
    for (const [method, path, body] of [
      ['GET', v('hidden', '/draft')],
      ['GET', v('hidden')],
      ['GET', v('hidden', '/draft/compare')],
      ['PATCH', v('hidden', '/draft'), { data: { title: 'x' } }],
      ['DELETE', v('hidden', '/draft')],
      ['POST', v('hidden', '/draft/promote')],
      ['POST', v('hidden'), { key: 'mine', name: 'Mine' }],
    ] as const) {
      const res = await call(alice, method, path, body);
      refused(res);
      expect(res.body, path).not.toContain('Hidden draft title');
      foreign(await call(mallory, method, path, body));
    }
    expect((await ok(admin, 'GET', v('hidden', '/draft'))).data.data.title).toBe('Hidden draft title');
  });

  it("drops hidden fields from a revision's delta as from its data", async () => {
    await ok(alice, 'POST', '/api/v1/items/articles', { id: 'revised', title: 'Revised' });
    await ok(admin, 'PATCH', '/api/v1/items/articles/revised', { secret: 'admin secret', title: 'Revised again' });
    const [last] = (await ok(alice, 'GET', '/api/v1/items/articles/revised/revisions')).data;
    expect(last.data).toEqual({ id: 'revised', title: 'Revised again' });
    expect(last.delta).toEqual({ title: 'Revised again' });
    expect(JSON.stringify(last)).not.toContain('admin secret');
    const full = (await ok(admin, 'GET', '/api/v1/items/articles/revised/revisions')).data[0];
    expect(full.delta).toEqual({ secret: 'admin secret', title: 'Revised again' });
  });

  it('drops hidden fields from the version, and from main, version and changes of compare', async () => {
    const one = (await ok(alice, 'GET', v('mine', '/draft'))).data.data;
    expect(one).toEqual({ id: 'mine', title: 'New' });
    expect((await ok(alice, 'GET', v('mine'))).data[0].data).toEqual({ id: 'mine', title: 'New' });
    const cmp = (await ok(alice, 'GET', v('mine', '/draft/compare'))).data;
    expect(cmp).toEqual({ main: { id: 'mine', title: 'Mine' }, version: one, changes: { title: 'New' } });
  });

  it('applies the update rules to version writes: 403 outside the update conditions or on unwritable fields', async () => {
    for (const [method, path, body] of [
      ['POST', v('shared'), { key: 'mine', name: 'Mine' }],
      ['PATCH', v('shared', '/draft'), { data: { title: 'x' } }],
      ['DELETE', v('shared', '/draft')],
      ['POST', v('shared', '/draft/promote')],
    ] as const)
      refused(await call(alice, method, path, body), 'PERMISSION_DENIED');
    refused(await call(alice, 'PATCH', v('mine', '/draft'), { data: { secret: 'x' } }), 'PERMISSION_DENIED');
    expect((await ok(alice, 'GET', v('shared', '/draft'))).data.data.title).toBe('Shared');
  });

  it('promotes what the version changes when the caller may write it', async () => {
    await ok(admin, 'PATCH', v('mine', '/draft'), { data: { secret: null } });
    const res = await ok(alice, 'POST', v('mine', '/draft/promote'));
    expect(res.data).toMatchObject({ id: 'mine', title: 'New' });
    expect(res.data.secret).toBeUndefined();
  });
});

describe('resolve-dependents under row rules', () => {
  const resolve = (as: string, id: string, body: object) =>
    call(as, 'POST', `/api/v1/items/authors/${id}/resolve-dependents`, body);
  let relation: string;
  beforeAll(async () => {
    relation = (await ok(admin, 'GET', '/api/v1/relations')).data.find(
      (r: { collection: string }) => r.collection === 'books',
    ).id;
    await ok(admin, 'POST', '/api/v1/items/authors', [{ id: 'au1' }, { id: 'au2' }, { id: 'au3' }]);
    await ok(admin, 'POST', '/api/v1/items/books', { id: 'b-admin', title: 'Admin book', author: 'au1' });
    await ok(alice, 'POST', '/api/v1/items/books', [
      { id: 'b-alice', title: 'Alice book', author: 'au1' },
      { id: 'b-alice2', title: 'Alice two', author: 'au2' },
    ]);
  });

  it('refuses set_null, reassign and delete with 403 when a referencing row lies outside the rule', async () => {
    for (const body of [
      { action: 'set_null', relation },
      { action: 'reassign', relation, newTargetId: 'au3' },
      { action: 'delete', relation },
    ]) {
      const res = await resolve(alice, 'au1', body);
      refused(res, 'PERMISSION_DENIED');
      expect(res.json().errors[0].message).toContain('an item of books');
      expect(res.body).not.toContain('b-admin');
      foreign(await resolve(mallory, 'au1', body));
    }
    expect((await ok(admin, 'GET', '/api/v1/items/books/b-admin')).data.author).toBe('au1');
    expect((await ok(admin, 'GET', '/api/v1/items/books/b-alice')).data.author).toBe('au1');
  });

  it('lists dependents with the full count but samples only of readable rows', async () => {
    const mine = (await ok(alice, 'GET', '/api/v1/items/authors/au1/dependents')).data.dependents[0];
    expect(mine).toMatchObject({ collection: 'books', count: 2, sample: ['b-alice'] });
    const all = (await ok(admin, 'GET', '/api/v1/items/authors/au1/dependents')).data.dependents[0];
    expect(all.sample).toEqual(['b-admin', 'b-alice']);
    foreign(await call(mallory, 'GET', '/api/v1/items/authors/au1/dependents'));
  });

  it('lets only site admins purge, and resolves rows inside the rule', async () => {
    refused(await resolve(alice, 'au2', { action: 'delete', relation, hard: true }), 'PERMISSION_DENIED');
    expect((await ok(admin, 'GET', '/api/v1/items/books/b-alice2')).data.title).toBe('Alice two');
    const res = await resolve(alice, 'au2', { action: 'set_null', relation });
    expect(res.json().data).toMatchObject({ affected: 1, ids: ['b-alice2'] });
  });
});

describe('revisions of purged items', () => {
  it('judges the read conditions on the last revision when the row is gone', async () => {
    await ok(admin, 'POST', '/api/v1/items/books', { id: 'p-admin', title: 'Purged admin', author: 'au3' });
    await ok(alice, 'POST', '/api/v1/items/books', { id: 'p-alice', title: 'Purged alice', author: 'au3' });
    const relation = (await ok(admin, 'GET', '/api/v1/items/authors/au3/dependents')).data.dependents[0].relation;
    await ok(admin, 'POST', '/api/v1/items/authors/au3/resolve-dependents', { action: 'delete', relation, hard: true });
    const other = await call(alice, 'GET', '/api/v1/items/books/p-admin/revisions');
    refused(other);
    expect(other.body).not.toContain('Purged admin');
    foreign(await call(mallory, 'GET', '/api/v1/items/books/p-admin/revisions'));
    const own = await ok(alice, 'GET', '/api/v1/items/books/p-alice/revisions');
    expect(own.data[0].data).toMatchObject({ title: 'Purged alice' });
    expect((await ok(admin, 'GET', '/api/v1/items/books/p-admin/revisions')).meta.total).toBe(2);
  });
});

describe('encrypted values', () => {
  beforeAll(async () => {
    await ok(admin, 'POST', '/api/v1/items/people', { id: 'p-admin', name: 'Ada', ssn: 'ADMIN-SSN' });
    await ok(alice, 'POST', '/api/v1/items/people', { id: 'p-alice', name: 'Al', ssn: 'ALICE-SSN', friend: 'p-admin' });
    await ok(admin, 'POST', '/api/v1/items/people/p-admin/versions', { key: 'draft', name: 'Draft' });
  });
  const ssn = async (url: string) => (await ok(alice, 'GET', url)).data;

  it('decrypts only rows the caller may read and update, everywhere it reads', async () => {
    const list = (await ssn('/api/v1/items/people?sort=id&fields=id,ssn')) as { id: string; ssn: string }[];
    expect(list).toEqual([
      { id: 'p-admin', ssn: '***' },
      { id: 'p-alice', ssn: 'ALICE-SSN' },
    ]);
    expect((await ssn('/api/v1/items/people/p-admin')).ssn).toBe('***');
    expect((await ssn('/api/v1/items/people/p-alice?fields=ssn,friend.ssn')).friend.ssn).toBe('***');
    expect((await ssn('/api/v1/items/people/p-admin/revisions'))[0].data.ssn).toBe('***');
    expect((await ssn('/api/v1/items/people/p-admin/revisions'))[0].delta.ssn).toBe('***');
    expect((await ssn('/api/v1/items/people/p-alice/revisions'))[0].delta.ssn).toBe('ALICE-SSN');
    expect((await ssn('/api/v1/items/people/p-alice/revisions'))[0].data.ssn).toBe('ALICE-SSN');
    expect((await ssn('/api/v1/items/people/p-admin/versions/draft')).data.ssn).toBe('***');
    expect((await ssn('/api/v1/items/people/p-admin/versions/draft/compare')).main.ssn).toBe('***');
    expect((await ssn('/api/v1/items/people/p-admin?version=1')).ssn).toBe('***');
    expect((await ok(admin, 'GET', '/api/v1/items/people/p-admin')).data.ssn).toBe('ADMIN-SSN');
    foreign(await call(mallory, 'GET', '/api/v1/items/people/p-admin'));
  });

  it('masks a field the caller may read but not write, and decrypts it once the caller may write it', async () => {
    const clerkRole = (await ok(admin, 'POST', '/api/v1/roles', { name: 'Clerk' })).data.id;
    const policy = (await ok(admin, 'POST', '/api/v1/policies', { name: 'Clerks' })).data.id;
    const rule = (body: object) => ok(admin, 'POST', `/api/v1/policies/${policy}/permissions`, body);
    await rule({ collection: 'people', action: 'read', fields: ['*'] });
    await rule({ collection: 'people', action: 'update', fields: ['name'] });
    await ok(admin, 'POST', `/api/v1/policies/${policy}/attach`, { role: clerkRole });
    const clerk = await createUser(t, 'clerk@example.com', PASSWORD, { main: clerkRole });
    expect((await ok(clerk, 'GET', '/api/v1/items/people/p-alice')).data).toMatchObject({ name: 'Al', ssn: '***' });
    await rule({ collection: 'people', action: 'update', fields: ['ssn'] });
    expect((await ok(clerk, 'GET', '/api/v1/items/people/p-alice')).data.ssn).toBe('ALICE-SSN');
  });

  it('shows a changed encrypted value in compare as *** to a caller who may not decrypt it', async () => {
    await ok(admin, 'PATCH', '/api/v1/items/people/p-admin/versions/draft', { data: { ssn: 'NEW-SSN' } });
    const cmp = await ssn('/api/v1/items/people/p-admin/versions/draft/compare');
    expect(cmp).toMatchObject({ version: { ssn: '***' }, changes: { ssn: '***' } });
    expect(JSON.stringify(cmp)).not.toContain('NEW-SSN');
  });
});
