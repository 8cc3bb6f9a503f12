import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../../test/setup/app.ts';
import { createUser } from '../../../../test/setup/users.ts';

let t: TestApp;
let admin: string;
let adminB: string;
let owner: string;
let ownerId: string;
const PASSWORD = 'Cross-site-pass-31!';
type Method = 'GET' | 'POST' | 'PATCH' | 'DELETE';
const call = (as: string | undefined, method: Method, url: string, payload?: object, site = 'site-b') =>
  t.call({ method, url, payload, as, site });
/** The mails to an address, once the work earlier answers left for later (an invitation's mail) has ended. */
const mails = async (to: string) => {
  await t.deps.afterAnswer.settled();
  return (await t.call({ method: 'GET', url: `/api/v1/admin/outbox?to=${encodeURIComponent(to)}`, as: admin })).json()
    .data as { kind: string; body: string }[];
};
const linkIn = (body: string) => /token=(\S+)/.exec(body)![1]!;
const ownSessions = async (token: string) =>
  (await call(token, 'GET', '/api/v1/me/sessions', undefined, 'site-a')).json().data as { id: string }[];

beforeAll(async () => {
  t = await createTestApp();
  admin = await t.setup();
  await call(admin, 'POST', '/api/v1/sites', { id: 'site-a', name: 'Site A' });
  await call(admin, 'POST', '/api/v1/sites', { id: 'site-b', name: 'Site B' });
  adminB = await createUser(t, 'admin-b@example.com', PASSWORD, { 'site-b': 'site_admin' });
  owner = await createUser(t, 'alice@example.com', PASSWORD, { 'site-a': 'editor' });
  ownerId = (await call(owner, 'GET', '/api/v1/auth/me')).json().data.id;
  await call(admin, 'PATCH', `/api/v1/users/${ownerId}`, { firstName: 'Alice', lastName: 'Private' }, 'site-a');
});
afterAll(() => t.close());

describe('a site admin of site B adding the address of a user of site A', () => {
  it('gets the answer a new address gets, without the name or the id, on both ways of adding', async () => {
    for (const url of ['/api/v1/users/invite', '/api/v1/users']) {
      const known = await call(adminB, 'POST', url, { email: 'alice@example.com', roleKey: 'viewer' });
      const fresh = await call(adminB, 'POST', '/api/v1/users/invite', {
        email: `fresh-${url.length}@example.com`,
        roleKey: 'viewer',
      });
      expect(known.statusCode).toBe(fresh.statusCode);
      expect(Object.keys(known.json().data).sort()).toEqual(Object.keys(fresh.json().data).sort());
      expect(known.json().data).toMatchObject({ email: 'alice@example.com', role: 'viewer', status: 'invited' });
      expect(known.body).not.toMatch(/Alice|Private/);
      expect(known.body).not.toContain(ownerId);
    }
  });

  it('makes no member until the owner accepts', async () => {
    expect((await call(adminB, 'GET', `/api/v1/users/${ownerId}`)).statusCode).toBe(404);
    expect((await call(adminB, 'GET', '/api/v1/users?search=alice')).json().data).toEqual([]);
    expect((await call(owner, 'GET', '/api/v1/site')).statusCode).toBe(403);
    expect((await call(owner, 'GET', '/api/v1/auth/me')).json().data.sites).toEqual({ 'site-a': 'editor' });
  });

  it('lets the owner accept with their own password: then a member of B, still of A, password unchanged', async () => {
    const invites = (await mails('alice@example.com')).filter((m) => m.kind === 'invite');
    expect(invites.length).toBeGreaterThan(0);
    const res = await t.call({
      method: 'POST',
      url: '/api/v1/auth/accept-invite',
      payload: { token: linkIn(invites.at(-1)!.body), password: PASSWORD },
    });
    expect(res.statusCode, res.body).toBe(200);
    expect((await call(owner, 'GET', '/api/v1/auth/me')).json().data.sites).toEqual({
      'site-a': 'editor',
      'site-b': 'viewer',
    });
    expect((await call(adminB, 'GET', `/api/v1/users/${ownerId}`)).json().data).toMatchObject({ role: 'viewer' });
    const login = await t.call({
      method: 'POST',
      url: '/api/v1/auth/login',
      payload: { email: 'alice@example.com', password: PASSWORD },
    });
    expect(login.statusCode).toBe(200);
  });

  it('then manages the membership only: not the names, not the sessions', async () => {
    const rename = await call(adminB, 'PATCH', `/api/v1/users/${ownerId}`, { firstName: 'Mallory' });
    expect(rename.statusCode).toBe(403);
    expect((await call(owner, 'GET', '/api/v1/auth/me')).json().data.firstName).toBe('Alice');
    expect((await call(adminB, 'GET', `/api/v1/users/${ownerId}/sessions`)).statusCode).toBe(403);
    const [session] = await ownSessions(owner);
    expect(session).toBeDefined();
    expect((await call(adminB, 'DELETE', `/api/v1/sessions/${session!.id}`)).statusCode).toBe(403);
    expect((await ownSessions(owner)).map((s) => s.id)).toContain(session!.id);
    expect((await call(admin, 'GET', `/api/v1/users/${ownerId}/sessions`)).statusCode).toBe(200);
    expect((await call(adminB, 'PATCH', `/api/v1/users/${ownerId}`, { roleKey: 'editor' })).statusCode).toBe(200);
    expect((await call(adminB, 'DELETE', `/api/v1/users/${ownerId}`)).statusCode).toBe(204);
    expect((await call(owner, 'GET', '/api/v1/auth/me')).json().data.sites).toEqual({ 'site-a': 'editor' });
  });

  it('still sees and ends the sessions of a member whose only site is theirs', async () => {
    const solo = await createUser(t, 'solo@example.com', PASSWORD, { 'site-b': 'editor' });
    const soloId = (await call(solo, 'GET', '/api/v1/auth/me')).json().data.id;
    const listed = await call(adminB, 'GET', `/api/v1/users/${soloId}/sessions`);
    expect(listed.statusCode).toBe(200);
    const [session] = listed.json().data as { id: string }[];
    expect((await call(adminB, 'DELETE', `/api/v1/sessions/${session!.id}`)).statusCode).toBe(200);
  });
});
