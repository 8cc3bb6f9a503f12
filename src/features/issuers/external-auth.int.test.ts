import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/setup/app.ts';
import { startTestIdp, type TestIdp } from './test-idp.fixture.ts';

const ISSUERS = '/api/v1/admin/auth/issuers';
const A = 'https://idp-a.example.com/';
const JIT = 'https://idp-jit.example.com/';
let t: TestApp;
let admin: string;
let idp: TestIdp;
let issuerA: string;

const register = async (payload: Record<string, unknown>, site = 'main') => {
  const res = await t.call({ method: 'POST', url: ISSUERS, as: admin, site, payload });
  expect(res.statusCode).toBe(201);
  return res.json().data.id as string;
};
const patchA = async (payload: Record<string, unknown>) =>
  expect(
    (await t.call({ method: 'PATCH', url: `${ISSUERS}/${issuerA}`, as: admin, site: 'main', payload })).statusCode,
  ).toBe(200);
const readSite = (token: string, site = 'main') => t.call({ method: 'GET', url: '/api/v1/site', as: token, site });
const now = () => Math.floor(Date.now() / 1000);
const tokenA = (claims: Record<string, unknown> = {}) =>
  idp.sign(idp.rsa, {
    iss: A,
    aud: 'svc',
    sub: 'alice',
    email: 'alice@idp.example.com',
    roles: ['editors'],
    ...claims,
  });

beforeAll(async () => {
  idp = await startTestIdp();
  t = await createTestApp({ env: { SVC_ALLOW_PRIVATE_ISSUERS: 'true' } });
  admin = await t.setup();
  expect(
    (await t.call({ method: 'POST', url: '/api/v1/sites', as: admin, payload: { id: 'second', name: 'Second' } }))
      .statusCode,
  ).toBe(201);
  issuerA = await register({
    issuer: A,
    jwksUri: idp.jwksUri,
    audience: ['svc', 'svc-alt'],
    algorithms: ['RS256'],
    claimMapping: { siteId: 'site' },
    roleMapping: {
      editors: { systemKey: 'editor' },
      admins: { roleId: 'site_admin' },
      readers: { systemKey: 'viewer' },
    },
  });
  await register({
    issuer: JIT,
    discoveryUrl: idp.discoveryUrl,
    audience: 'svc',
    algorithms: ['ES256'],
    claimMapping: { email: 'mail', roles: 'realm_access.roles' },
    roleMapping: { member: { systemKey: 'viewer' } },
    jitProvisioning: true,
  });
});
afterAll(async () => {
  await t.close();
  await idp.close();
});

describe('External JWT authentication', () => {
  describe('with a valid token of a trusted issuer', () => {
    it('reads a site-scoped route', async () => {
      const res = await readSite(await tokenA());
      expect(res.statusCode).toBe(200);
      expect(res.json().data.id).toBe('main');
    });

    it('acts with the mapped role: an editor may not change the site, a mapped site admin may', async () => {
      const patch = async (token: string) =>
        (await t.call({ method: 'PATCH', url: '/api/v1/site', as: token, site: 'main', payload: { name: 'Main' } }))
          .statusCode;
      expect(await patch(await tokenA())).toBe(403);
      expect(await patch(await tokenA({ roles: ['readers', 'admins', 'editors'] }))).toBe(200);
      expect(await patch(await tokenA({ roles: 'admins' }))).toBe(200);
    });

    it('accepts a siteId claim equal to the request site', async () => {
      expect((await readSite(await tokenA({ site: 'main' }))).statusCode).toBe(200);
    });
  });

  describe('once the issuer matched (fail closed)', () => {
    const refused = async (token: string, code = 'UNAUTHENTICATED') => {
      const res = await readSite(token);
      expect(res.statusCode).toBe(401);
      expect(res.json().errors[0].code).toBe(code);
      expect(res.json().errors[0].message).toMatch(/external issuer/);
    };
    it('refuses a wrong audience with 401', async () => refused(await tokenA({ aud: 'someone-else' })));
    it('refuses an expired token with 401 TOKEN_EXPIRED', async () =>
      refused(await tokenA({ iat: now() - 7200, exp: now() - 3600 }), 'TOKEN_EXPIRED'));
    it('refuses a token not valid before a future time with 401', async () =>
      refused(await tokenA({ nbf: now() + 3600 })));
    it('refuses an algorithm outside the issuer list with 401', async () =>
      refused(await idp.sign(idp.ec, { iss: A, aud: 'svc', sub: 'alice', roles: ['editors'] })));
    it('refuses a key the issuer does not publish with 401', async () =>
      refused(await idp.sign(idp.stranger, { iss: A, aud: 'svc', sub: 'alice', roles: ['editors'] })));
    it('refuses a token without a subject with 401', async () => refused(await tokenA({ sub: undefined })));

    it('refuses a siteId claim naming another site with 403', async () => {
      const res = await readSite(await tokenA({ site: 'second' }));
      expect(res.statusCode).toBe(403);
      expect(res.json().errors[0].code).toBe('PERMISSION_DENIED');
    });

    it('refuses a token whose roles map to nothing with 403, never an implicit role', async () => {
      for (const roles of [['strangers'], [], 'constructor', undefined]) {
        const res = await readSite(await tokenA({ roles }));
        expect(res.statusCode).toBe(403);
        expect(res.json().errors[0].code).toBe('PERMISSION_DENIED');
      }
    });

    it('gives unmapped roles the default role when the issuer has one', async () => {
      await patchA({ defaultRoleId: 'viewer' });
      expect((await readSite(await tokenA({ roles: ['strangers'] }))).statusCode).toBe(200);
      await patchA({ defaultRoleId: null });
      expect((await readSite(await tokenA({ roles: ['strangers'] }))).statusCode).toBe(403);
    });
  });

  describe('when the issuer does not match, the token falls through to the service tokens', () => {
    const fellThrough = async (res: Awaited<ReturnType<typeof readSite>>) => {
      expect(res.statusCode).toBe(401);
      expect(res.json().errors[0].code).toBe('UNAUTHENTICATED');
      expect(res.json().errors[0].message).not.toMatch(/external issuer/);
    };
    it('refuses an unknown iss with 401 (internal verification)', async () =>
      fellThrough(await readSite(await tokenA({ iss: 'https://unknown.example.com/' }))));
    it('refuses a token of site main used on site second with 401', async () =>
      fellThrough(await readSite(await tokenA(), 'second')));
    it('ignores a disabled issuer', async () => {
      await patchA({ enabled: false });
      await fellThrough(await readSite(await tokenA()));
      await patchA({ enabled: true });
      expect((await readSite(await tokenA())).statusCode).toBe(200);
    });
  });

  describe('with just-in-time provisioning (issuer found through its discovery document)', () => {
    const jitToken = (sub: string, mail: string) =>
      idp.sign(idp.ec, { iss: JIT, aud: 'svc', sub, mail, realm_access: { roles: ['member'] } });
    const usersWith = async (email: string) =>
      (
        await sql<{ n: number }>`select count(*)::int as n from users where email = ${email}`.execute(
          t.deps.database.owner,
        )
      ).rows[0]!.n;

    it('creates the user once, and /auth/me works for it', async () => {
      const token = await jitToken('bob', 'bob@idp.example.com');
      const first = await t.call({ method: 'GET', url: '/api/v1/auth/me', as: token, site: 'main' });
      expect(first.statusCode).toBe(200);
      expect(first.json().data).toMatchObject({
        email: 'bob@idp.example.com',
        instanceAdmin: false,
        sites: { main: 'viewer' },
        amr: ['ext'],
      });
      const second = await t.call({
        method: 'GET',
        url: '/api/v1/auth/me',
        as: await jitToken('bob', 'bob@idp.example.com'),
        site: 'main',
      });
      expect(second.json().data.id).toBe(first.json().data.id);
      expect(await usersWith('bob@idp.example.com')).toBe(1);
    });

    it('creates one user for concurrent first requests', async () => {
      const token = await jitToken('carol', 'carol@idp.example.com');
      const res = await Promise.all(
        [0, 1, 2].map(() => t.call({ method: 'GET', url: '/api/v1/auth/me', as: token, site: 'main' })),
      );
      expect(res.map((r) => r.statusCode)).toEqual([200, 200, 200]);
      expect(new Set(res.map((r) => r.json().data.id)).size).toBe(1);
      expect(await usersWith('carol@idp.example.com')).toBe(1);
    });

    it('refuses to provision an identity whose email belongs to another account', async () => {
      const res = await t.call({
        method: 'GET',
        url: '/api/v1/auth/me',
        as: await jitToken('mallory', 'admin@example.com'),
        site: 'main',
      });
      expect(res.statusCode).toBe(403);
      expect(res.json().errors[0]).toMatchObject({ code: 'PERMISSION_DENIED', extensions: { reason: 'email_taken' } });
    });

    it('without provisioning, the actor is the external identity itself (no profile)', async () => {
      const res = await t.call({ method: 'GET', url: '/api/v1/auth/me', as: await tokenA(), site: 'main' });
      expect(res.statusCode).toBe(401);
    });
  });
});
