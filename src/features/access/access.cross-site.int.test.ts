import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/setup/app.ts';
import { createUser } from '../../../test/setup/users.ts';

let t: TestApp;
let admin: string;
let outsider: string;
let member: string;
let memberId: string;
const ids = { role: '', policy: '', team: '', rule: '' };
const PASSWORD = 'Cross-site-pass-1618!';
type Method = 'GET' | 'POST' | 'PATCH' | 'DELETE';
const call = (as: string, method: Method, url: string, site: string, payload?: object) =>
  t.call({ method, url, as, site, ...(payload ? { payload } : {}) });
const ok = async (as: string, method: Method, url: string, site: string, payload?: object) => {
  const res = await call(as, method, url, site, payload);
  expect(res.statusCode, res.body).toBeLessThan(300);
  return res.json();
};
const model = async () =>
  Promise.all(
    ['/api/v1/roles', '/api/v1/policies', '/api/v1/teams'].map(async (u) => (await ok(admin, 'GET', u, 'main')).data),
  );

beforeAll(async () => {
  t = await createTestApp();
  admin = await t.setup();
  await ok(admin, 'POST', '/api/v1/sites', 'main', { id: 'other', name: 'Other' });
  await ok(admin, 'POST', '/api/v1/collections', 'main', { name: 'notes' });
  outsider = await createUser(t, 'outsider@example.com', PASSWORD, { other: 'site_admin' });
  member = await createUser(t, 'member@example.com', PASSWORD, { main: 'viewer' });
  memberId = (await ok(member, 'GET', '/api/v1/auth/me', 'main')).data.id;
  ids.role = (await ok(admin, 'POST', '/api/v1/roles', 'main', { name: 'Main role' })).data.id;
  ids.policy = (await ok(admin, 'POST', '/api/v1/policies', 'main', { name: 'Main policy' })).data.id;
  ids.team = (await ok(admin, 'POST', '/api/v1/teams', 'main', { name: 'Main team', members: [memberId] })).data.id;
  const rule = { collection: 'notes', action: 'read' };
  ids.rule = (await ok(admin, 'POST', `/api/v1/policies/${ids.policy}/permissions`, 'main', rule)).data.id;
});
afterAll(() => t.close());

describe('the access model of a site', () => {
  const requests = (): [Method, string, object?][] => [
    ['GET', '/api/v1/roles'],
    ['GET', `/api/v1/roles/${ids.role}`],
    ['PATCH', `/api/v1/roles/${ids.role}`, { name: 'Taken over' }],
    ['DELETE', `/api/v1/roles/${ids.role}`],
    ['GET', '/api/v1/policies'],
    ['GET', `/api/v1/policies/${ids.policy}`],
    ['GET', `/api/v1/policies/${ids.policy}/permissions`],
    ['PATCH', `/api/v1/policies/${ids.policy}`, { name: 'Taken over' }],
    ['POST', `/api/v1/policies/${ids.policy}/permissions`, { collection: 'notes', action: 'update' }],
    ['DELETE', `/api/v1/policies/${ids.policy}/permissions/${ids.rule}`],
    ['POST', `/api/v1/policies/${ids.policy}/attach`, { role: 'viewer' }],
    ['DELETE', `/api/v1/policies/${ids.policy}`],
    ['GET', '/api/v1/teams'],
    ['GET', `/api/v1/teams/${ids.team}`],
    ['PATCH', `/api/v1/teams/${ids.team}`, { name: 'Taken over', removeMembers: [memberId] }],
    ['DELETE', `/api/v1/teams/${ids.team}`],
  ];

  it('is closed to a site admin of another site who names it (403)', async () => {
    const before = await model();
    for (const [method, url, body] of requests()) {
      const res = await call(outsider, method, url, 'main', body);
      expect(res.statusCode, `${method} ${url}`).toBe(403);
      expect(res.json().errors[0].code).toBe('PERMISSION_DENIED');
    }
    expect(await model()).toEqual(before);
  });

  it("is invisible from another site: this site's ids are unknown there (404)", async () => {
    const before = await model();
    for (const [method, url, body] of requests().filter(([, u]) => /\/[A-Za-z0-9_-]{21}/.test(u))) {
      const res = await call(outsider, method, url, 'other', body);
      expect(res.statusCode, `${method} ${url}`).toBe(404);
      expect(res.json().errors[0].code).toBe('NOT_FOUND');
    }
    const lists = await Promise.all(
      ['/api/v1/roles', '/api/v1/policies', '/api/v1/teams'].map(
        async (u) => (await ok(outsider, 'GET', u, 'other')).data as { id: string }[],
      ),
    );
    expect(lists.flat().map((r) => r.id)).not.toEqual(expect.arrayContaining([ids.role, ids.policy, ids.team]));
    expect(await model()).toEqual(before);
  });

  it("does not check this site's members from another site", async () => {
    const res = await call(outsider, 'POST', '/api/v1/permissions/check', 'other', {
      collection: 'notes',
      action: 'read',
      userId: memberId,
    });
    expect(res.statusCode).toBe(404);
    const me = await ok(member, 'GET', '/api/v1/permissions/me', 'main');
    expect(me.data.role).toBe('viewer');
    expect((await call(member, 'GET', '/api/v1/permissions/me', 'other')).statusCode).toBe(403);
  });
});
