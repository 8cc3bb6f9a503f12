import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../setup/app.ts';
import { createUser } from '../setup/users.ts';

let t: TestApp;
let viewer: string;
let siteAdmin: string;
beforeAll(async () => {
  t = await createTestApp();
  const admin = await t.setup();
  await t.call({ method: 'POST', url: '/api/v1/sites', as: admin, payload: { id: 'other', name: 'Other' } });
  viewer = await createUser(t, 'viewer@example.com', 'Viewer-pass-1234', { other: 'viewer' });
  siteAdmin = await createUser(t, 'siteadmin@example.com', 'Siteadm-pass-1234', { other: 'site_admin' });
});
afterAll(() => t.close());

describe('site membership', () => {
  it('lets a member read their site and lists only their sites', async () => {
    expect((await t.call({ method: 'GET', url: '/api/v1/site', as: viewer, site: 'other' })).statusCode).toBe(200);
    const sites = await t.call({ method: 'GET', url: '/api/v1/sites', as: viewer });
    expect(sites.json().data.map((s: { id: string }) => s.id)).toEqual(['other']);
  });

  it('refuses a site the caller is not a member of with 403', async () => {
    const res = await t.call({ method: 'GET', url: '/api/v1/site', as: viewer, site: 'main' });
    expect(res.statusCode).toBe(403);
    expect(res.json().errors[0].code).toBe('PERMISSION_DENIED');
  });

  it('keeps site settings to site administrators', async () => {
    expect(
      (await t.call({ method: 'PATCH', url: '/api/v1/site', as: viewer, site: 'other', payload: { name: 'x' } }))
        .statusCode,
    ).toBe(403);
    const ok = await t.call({
      method: 'PATCH',
      url: '/api/v1/site',
      as: siteAdmin,
      site: 'other',
      payload: { name: 'By site admin' },
    });
    expect(ok.statusCode).toBe(200);
    expect(ok.json().data.name).toBe('By site admin');
  });

  it('keeps instance areas to instance administrators', async () => {
    expect(
      (await t.call({ method: 'POST', url: '/api/v1/sites', as: siteAdmin, payload: { id: 'mine', name: 'Mine' } }))
        .statusCode,
    ).toBe(403);
    expect((await t.call({ method: 'GET', url: '/api/v1/admin/projections', as: siteAdmin })).statusCode).toBe(403);
    expect(
      (await t.call({ method: 'POST', url: '/api/v1/admin/projections/sites/rebuild', as: viewer })).statusCode,
    ).toBe(403);
  });
});
