import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, createTestApp, type TestApp } from '../../../../test/setup/app.ts';
import { createUser } from '../../../../test/setup/users.ts';

let t: TestApp;
let admin: string;
let siteAdmin: string;
const PASSWORD = 'Members-pass-9876!';
type Method = 'GET' | 'POST' | 'PATCH' | 'DELETE';
const call = (as: string | undefined, method: Method, url: string, payload?: object, site = 'main') =>
  t.call({ method, url, payload, as, site });
const login = (email: string, password = PASSWORD) =>
  t.call({ method: 'POST', url: '/api/v1/auth/login', payload: { email, password } });
/** The mails to an address, once the work earlier answers left for later (an invitation's mail) has ended. */
const outbox = async (to: string) => {
  await t.deps.afterAnswer.settled();
  return (await call(admin, 'GET', `/api/v1/admin/outbox?to=${encodeURIComponent(to)}`)).json().data as {
    kind: string;
    body: string;
  }[];
};

beforeAll(async () => {
  // Access tokens live an hour here, so that the impersonation cap (15 minutes) shows.
  t = await createTestApp({ env: { ACCESS_TOKEN_TTL_S: '3600' } });
  admin = await t.setup();
  await call(admin, 'POST', '/api/v1/sites', { id: 'other', name: 'Other' });
  siteAdmin = await createUser(t, 'siteadmin@example.com', PASSWORD, { main: 'site_admin' });
});
afterAll(() => t.close());

describe('users of a site', () => {
  it('creates a member who can log in, and lists only this site members', async () => {
    const res = await call(siteAdmin, 'POST', '/api/v1/users', {
      email: 'New.Member@Example.com',
      password: PASSWORD,
      firstName: 'Nina',
      roleKey: 'editor',
    });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json().data).toMatchObject({
      email: 'new.member@example.com',
      firstName: 'Nina',
      role: 'editor',
      status: 'active',
    });
    expect((await login('new.member@example.com')).statusCode).toBe(200);
    await createUser(t, 'elsewhere@example.com', PASSWORD, { other: 'editor' });
    const list = (await call(siteAdmin, 'GET', '/api/v1/users?limit=50')).json();
    const emails = list.data.map((u: { email: string }) => u.email);
    expect(emails).toContain('new.member@example.com');
    expect(emails).not.toContain('elsewhere@example.com');
    expect(emails).not.toContain(ADMIN.email);
    expect(list.meta.total).toBe(emails.length);
    expect((await call(siteAdmin, 'GET', '/api/v1/users?search=nina')).json().data).toHaveLength(1);
    expect(
      (await call(siteAdmin, 'GET', '/api/v1/users?role=site_admin'))
        .json()
        .data.map((u: { email: string }) => u.email),
    ).toEqual(['siteadmin@example.com']);
    expect((await call(admin, 'GET', '/api/v1/users')).json().data.map((u: { email: string }) => u.email)).toContain(
      ADMIN.email,
    );
  });

  it('turns an account of another site into an invitation, never a membership', async () => {
    await createUser(t, 'both@example.com', PASSWORD, { other: 'viewer' });
    const added = await call(siteAdmin, 'POST', '/api/v1/users', { email: 'both@example.com', roleKey: 'viewer' });
    expect(added.statusCode).toBe(202);
    expect(added.json().data).toEqual({
      id: expect.any(String),
      email: 'both@example.com',
      role: 'viewer',
      status: 'invited',
    });
    expect((await call(siteAdmin, 'GET', '/api/v1/users?search=both')).json().data).toEqual([]);
    const again = await call(siteAdmin, 'POST', '/api/v1/users', { email: 'both@example.com', roleKey: 'viewer' });
    expect(again.statusCode).toBe(202);
    expect((await login('both@example.com')).json().data.user.email).toBe('both@example.com');
  });

  it('validates roles and passwords, and keeps the admin role for administrators', async () => {
    const unknown = await call(siteAdmin, 'POST', '/api/v1/users', { email: 'r1@example.com', roleKey: 'boss' });
    expect(unknown.statusCode).toBe(400);
    expect(unknown.json().errors[0].path).toEqual(['roleKey']);
    const both = await call(siteAdmin, 'POST', '/api/v1/users', {
      email: 'r2@example.com',
      roleKey: 'viewer',
      roleId: 'editor',
    });
    expect(both.statusCode).toBe(400);
    const weak = await call(siteAdmin, 'POST', '/api/v1/users', {
      email: 'r3@example.com',
      roleKey: 'viewer',
      password: 'short',
    });
    expect(weak.statusCode).toBe(400);
    expect(
      (await call(siteAdmin, 'POST', '/api/v1/users', { email: 'r4@example.com', roleKey: 'admin' })).statusCode,
    ).toBe(403);
    expect((await call(admin, 'POST', '/api/v1/users', { email: 'r4@example.com', roleKey: 'admin' })).statusCode).toBe(
      201,
    );
    const custom = (await call(admin, 'POST', '/api/v1/roles', { name: 'Proofreader', parentId: 'viewer' })).json().data
      .id;
    const withCustom = await call(siteAdmin, 'POST', '/api/v1/users', { email: 'r5@example.com', roleId: custom });
    expect(withCustom.json().data.role).toBe(custom);
  });

  it('changes names and roles, but not an admin by a site admin, nor anyone their own role', async () => {
    const id = (await call(siteAdmin, 'POST', '/api/v1/users', { email: 'p1@example.com', roleKey: 'viewer' })).json()
      .data.id;
    const renamed = await call(siteAdmin, 'PATCH', `/api/v1/users/${id}`, { roleKey: 'editor', lastName: 'Park' });
    expect(renamed.statusCode).toBe(403);
    expect(renamed.json().errors[0].path).toEqual(['lastName']);
    expect((await call(siteAdmin, 'GET', `/api/v1/users/${id}`)).json().data.role).toBe('viewer');
    const patched = await call(siteAdmin, 'PATCH', `/api/v1/users/${id}`, { roleKey: 'editor' });
    expect(patched.json().data).toMatchObject({ role: 'editor', lastName: null });
    const byAdmin = await call(admin, 'PATCH', `/api/v1/users/${id}`, { lastName: 'Park' });
    expect(byAdmin.json().data).toMatchObject({ role: 'editor', lastName: 'Park' });
    const adminMember = (await call(siteAdmin, 'GET', '/api/v1/users?role=admin')).json().data[0].id;
    expect((await call(siteAdmin, 'PATCH', `/api/v1/users/${adminMember}`, { roleKey: 'viewer' })).statusCode).toBe(
      403,
    );
    expect((await call(siteAdmin, 'DELETE', `/api/v1/users/${adminMember}`)).statusCode).toBe(403);
    const me = (await call(siteAdmin, 'GET', '/api/v1/auth/me')).json().data.id;
    expect((await call(siteAdmin, 'PATCH', `/api/v1/users/${me}`, { roleKey: 'admin' })).statusCode).toBe(403);
    expect((await call(siteAdmin, 'PATCH', `/api/v1/users/${me}`, { roleKey: 'viewer' })).statusCode).toBe(403);
    expect((await call(siteAdmin, 'PATCH', `/api/v1/users/${id}`, { roleKey: 'nope' })).statusCode).toBe(400);
  });

  it('removes a membership: the member is out of the site at once, the identity stays', async () => {
    const token = await createUser(t, 'leaver@example.com', PASSWORD, { main: 'editor', other: 'viewer' });
    const id = (await call(token, 'GET', '/api/v1/auth/me')).json().data.id;
    expect((await call(token, 'GET', '/api/v1/site')).statusCode).toBe(200);
    expect((await call(siteAdmin, 'DELETE', `/api/v1/users/${id}`)).statusCode).toBe(204);
    expect((await call(token, 'GET', '/api/v1/site')).statusCode).toBe(403);
    expect((await call(token, 'GET', '/api/v1/site', undefined, 'other')).statusCode).toBe(200);
    expect((await call(siteAdmin, 'GET', `/api/v1/users/${id}`)).statusCode).toBe(404);
  });

  it('keeps every site apart and hides instance admins from site admins', async () => {
    const other = (await call(admin, 'GET', '/api/v1/users?search=elsewhere', undefined, 'other')).json().data[0].id;
    expect((await call(siteAdmin, 'GET', `/api/v1/users/${other}`)).statusCode).toBe(404);
    expect((await call(siteAdmin, 'GET', '/api/v1/users', undefined, 'other')).statusCode).toBe(403);
    const adminId = (await call(admin, 'GET', '/api/v1/auth/me')).json().data.id;
    expect((await call(siteAdmin, 'GET', `/api/v1/users/${adminId}`)).statusCode).toBe(404);
    const editor = await createUser(t, 'plain-editor@example.com', PASSWORD, { main: 'editor' });
    expect((await call(editor, 'GET', '/api/v1/users')).statusCode).toBe(403);
    expect((await call(undefined, 'GET', '/api/v1/users')).statusCode).toBe(401);
  });
});

describe('invitations', () => {
  it('mails a link that sets the password once and signs the member in', async () => {
    const res = await call(siteAdmin, 'POST', '/api/v1/users/invite', {
      email: 'guest@example.com',
      roleKey: 'editor',
    });
    expect(res.statusCode).toBe(202);
    expect(res.json().data).toMatchObject({ status: 'invited', role: 'editor' });
    expect((await login('guest@example.com', PASSWORD)).statusCode).toBe(401);
    const [mail] = await outbox('guest@example.com');
    expect(mail!.kind).toBe('invite');
    const token = /token=(\S+)/.exec(mail!.body)![1]!;
    const weak = await t.call({
      method: 'POST',
      url: '/api/v1/auth/accept-invite',
      payload: { token, password: 'weak' },
    });
    expect(weak.statusCode).toBe(400);
    const accepted = await t.call({
      method: 'POST',
      url: '/api/v1/auth/accept-invite',
      payload: { token, password: PASSWORD },
    });
    expect(accepted.statusCode, accepted.body).toBe(200);
    expect(accepted.json().data.refreshToken).toMatch(/^svcr_/);
    const twice = await t.call({
      method: 'POST',
      url: '/api/v1/auth/accept-invite',
      payload: { token, password: 'Another-pass-1111!' },
    });
    expect(twice.json().errors[0]).toMatchObject({ code: 'VALIDATION_FAILED', path: ['token'] });
    expect((await login('guest@example.com')).statusCode).toBe(200);
  });

  it('sends a link to an account created without a password', async () => {
    await call(admin, 'POST', '/api/v1/users', { email: 'nopass@example.com', roleKey: 'viewer' }, 'other');
    const res = await call(siteAdmin, 'POST', '/api/v1/users/invite', {
      email: 'nopass@example.com',
      roleKey: 'viewer',
    });
    expect(res.statusCode).toBe(202);
    const token = /token=(\S+)/.exec((await outbox('nopass@example.com'))[0]!.body)![1]!;
    const accepted = await t.call({
      method: 'POST',
      url: '/api/v1/auth/accept-invite',
      payload: { token, password: PASSWORD },
    });
    expect(accepted.statusCode, accepted.body).toBe(200);
  });

  it('invites an existing account, which joins when its owner accepts with its password, then refuses 409', async () => {
    const owner = await createUser(t, 'known@example.com', PASSWORD, { other: 'viewer' });
    const res = await call(siteAdmin, 'POST', '/api/v1/users/invite', {
      email: 'known@example.com',
      roleKey: 'viewer',
    });
    expect(res.statusCode).toBe(202);
    expect(res.json().data.status).toBe('invited');
    expect((await call(owner, 'GET', '/api/v1/site')).statusCode).toBe(403);
    const token = /token=(\S+)/.exec((await outbox('known@example.com'))[0]!.body)![1]!;
    const accept = (password: string) =>
      t.call({ method: 'POST', url: '/api/v1/auth/accept-invite', payload: { token, password } });
    expect((await accept('Not-the-password-1!')).statusCode).toBe(401);
    expect((await accept(PASSWORD)).statusCode).toBe(200);
    expect((await call(owner, 'GET', '/api/v1/site')).statusCode).toBe(200);
    expect((await login('known@example.com')).statusCode).toBe(200);
    expect((await accept(PASSWORD)).json().errors[0]).toMatchObject({ code: 'VALIDATION_FAILED', path: ['token'] });
    expect(
      (await call(siteAdmin, 'POST', '/api/v1/users/invite', { email: 'known@example.com', roleKey: 'viewer' }))
        .statusCode,
    ).toBe(409);
  });
});

describe('impersonation', () => {
  it('issues a token for a member that records the administrator on every event', async () => {
    await call(admin, 'POST', '/api/v1/collections', { name: 'notes' });
    await call(admin, 'POST', '/api/v1/fields/notes', { field: 'text', type: 'string' });
    const member = await createUser(t, 'member@example.com', PASSWORD, { main: 'editor', other: 'editor' });
    const memberId = (await call(member, 'GET', '/api/v1/auth/me')).json().data.id;
    const adminId = (await call(admin, 'GET', '/api/v1/auth/me')).json().data.id;
    const res = await call(admin, 'POST', `/api/v1/users/${memberId}/impersonate`);
    expect(res.statusCode, res.body).toBe(200);
    const token = res.json().data.token as string;
    const claims = JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString());
    expect(claims).toMatchObject({ sub: memberId, act: { sub: adminId }, amr: ['impersonation'] });
    expect(claims.exp - claims.iat).toBeLessThanOrEqual(900);
    expect((await call(token, 'GET', '/api/v1/auth/me')).json().data.id).toBe(memberId);
    const written = await call(token, 'POST', '/api/v1/items/notes', { text: 'as the member' });
    expect(written.statusCode).toBe(201);
    const events = await sql<{ actor: { type: string; id: string; onBehalfOf?: string } }>`
      select metadata->'actor' as actor from events where type = 'ItemCreated' and data->>'collection' = 'notes'`.execute(
      t.deps.database.owner,
    );
    expect(events.rows[0]!.actor).toEqual({ type: 'user', id: memberId, onBehalfOf: adminId });
    expect((await call(token, 'GET', '/api/v1/site', undefined, 'other')).statusCode).toBe(403);
    expect((await call(token, 'GET', '/api/v1/roles')).statusCode).toBe(403);
    expect(
      (
        await call(token, 'POST', '/api/v1/me/change-password', {
          currentPassword: PASSWORD,
          newPassword: 'X-new-pass-12345!',
        })
      ).statusCode,
    ).toBe(403);
    expect((await call(token, 'POST', `/api/v1/users/${memberId}/impersonate`)).statusCode).toBe(403);
  });

  it('never impersonates an administrator, and only administrators impersonate', async () => {
    const saId = (await call(siteAdmin, 'GET', '/api/v1/auth/me')).json().data.id;
    expect((await call(admin, 'POST', `/api/v1/users/${saId}/impersonate`)).statusCode).toBe(403);
    const viewer = await createUser(t, 'target@example.com', PASSWORD, { main: 'viewer' });
    const viewerId = (await call(viewer, 'GET', '/api/v1/auth/me')).json().data.id;
    expect((await call(siteAdmin, 'POST', `/api/v1/users/${viewerId}/impersonate`)).statusCode).toBe(403);
    expect((await call(admin, 'POST', '/api/v1/users/nobody/impersonate')).statusCode).toBe(404);
  });
});
