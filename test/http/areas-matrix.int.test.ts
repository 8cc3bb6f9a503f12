import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../setup/app.ts';
import { createUser } from '../setup/users.ts';

/**
 * The spec's Authentication rule 2, as a matrix: every system role against every admin-only and site-admin-only
 * area. Site-scoped admin areas are open to the site's `admin` role; instance-wide ones to instance admins only.
 */
let t: TestApp;
const tokens: Record<string, string> = {};
const ROLES = ['admin', 'site_admin', 'editor', 'viewer', 'subscriber', 'public'] as const;

beforeAll(async () => {
  t = await createTestApp();
  tokens.instance = await t.setup();
  for (const role of ROLES)
    tokens[role] = await createUser(t, `${role}-user@example.com`, 'Matrix-pass-1618!', { main: role });
});
afterAll(() => t.close());

type Area = { method: 'GET' | 'PATCH' | 'POST' | 'PUT'; url: string; payload?: object; site?: boolean };
const ADMIN_SITE: Area[] = [
  { method: 'POST', url: '/api/v1/utils/cache/purge', payload: { tags: ['site:main'] } },
  { method: 'GET', url: '/api/v1/email/suppressions' },
];
// Whom the service trusts to sign tokens is the instance's call, even for one site's issuers.
const ADMIN_INSTANCE: Area[] = [
  { method: 'GET', url: '/api/v1/admin/auth/issuers' },
  { method: 'GET', url: '/api/v1/admin/outbox', site: false },
  { method: 'GET', url: '/api/v1/admin/projections', site: false },
];
const SITE_ADMIN: Area[] = [
  { method: 'GET', url: '/api/v1/roles' },
  { method: 'GET', url: '/api/v1/policies' },
  { method: 'GET', url: '/api/v1/teams' },
  { method: 'GET', url: '/api/v1/users/subscriber-access' },
  { method: 'GET', url: '/api/v1/api-keys' },
  { method: 'GET', url: '/api/v1/audit' },
  { method: 'PATCH', url: '/api/v1/site', payload: { settings: { upload_policy: { maxBytes: 1000 } } } },
  { method: 'PUT', url: '/api/v1/uploads/config', payload: { maxBytes: 2000 } },
];

const status = async (who: string, a: Area) =>
  (
    await t.call({
      method: a.method,
      url: a.url,
      payload: a.payload,
      as: tokens[who],
      ...(a.site === false ? {} : { site: 'main' }),
    })
  ).statusCode;

describe('admin-only and site-admin-only areas', () => {
  const cases: [string, Area[], string[]][] = [
    ['site admin areas', SITE_ADMIN, ['instance', 'admin', 'site_admin']],
    ['admin areas of a site', ADMIN_SITE, ['instance', 'admin']],
    ['instance admin areas', ADMIN_INSTANCE, ['instance']],
  ];
  for (const [name, areas, allowed] of cases) {
    it(`opens ${name} to ${allowed.join(', ')} and answers 403 to every other role`, async () => {
      for (const a of areas) {
        for (const who of ['instance', ...ROLES]) {
          const code = await status(who, a);
          if (allowed.includes(who)) expect(code, `${who} ${a.method} ${a.url}`).toBeLessThan(300);
          else expect(code, `${who} ${a.method} ${a.url}`).toBe(403);
        }
      }
    });
  }

  it('answers 401 to callers without a token', async () => {
    for (const a of [...SITE_ADMIN, ...ADMIN_SITE, ...ADMIN_INSTANCE]) {
      const res = await t.call({ method: a.method, url: a.url, payload: a.payload, site: 'main' });
      expect(res.statusCode, a.url).toBe(401);
    }
  });
});
