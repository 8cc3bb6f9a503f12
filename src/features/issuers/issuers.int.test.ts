import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/setup/app.ts';
import { createUser } from '../../../test/setup/users.ts';

const URL = '/api/v1/admin/auth/issuers';
let t: TestApp;
let admin: string;

const valid = (over: Record<string, unknown> = {}) => ({
  issuer: 'https://idp.example.com/',
  jwksUri: 'https://idp.example.com/jwks',
  audience: 'svc',
  algorithms: ['RS256'],
  roleMapping: { editors: { systemKey: 'editor' } },
  ...over,
});
const post = (payload: Record<string, unknown>, as = admin, site = 'main') =>
  t.call({ method: 'POST', url: URL, as, site, payload });

beforeAll(async () => {
  t = await createTestApp({ env: { SVC_ALLOW_PRIVATE_ISSUERS: 'true' } });
  admin = await t.setup();
  const res = await t.call({
    method: 'POST',
    url: '/api/v1/sites',
    as: admin,
    payload: { id: 'second', name: 'Second' },
  });
  expect(res.statusCode).toBe(201);
});
afterAll(() => t.close());

describe('POST /api/v1/admin/auth/issuers', () => {
  it('registers an issuer with the defaults of the record', async () => {
    const res = await post(valid({ issuer: 'https://defaults.example.com/' }));
    expect(res.statusCode).toBe(201);
    expect(res.json().data).toMatchObject({
      issuer: 'https://defaults.example.com/',
      jwksUri: 'https://idp.example.com/jwks',
      discoveryUrl: null,
      claimMapping: { email: 'email', roles: 'roles', externalId: 'sub' },
      defaultRoleId: null,
      jitProvisioning: false,
      clockSkewSeconds: 60,
      enabled: true,
      version: 1,
    });
    expect(res.json().data.id).toMatch(/^[0-9A-Za-z]{21}$/);
  });

  it.each([
    ['HS256', { algorithms: ['HS256'] }, ['body', 'algorithms', '0']],
    ['none', { algorithms: ['RS256', 'none'] }, ['body', 'algorithms', '1']],
    ['an empty algorithm list', { algorithms: [] }, ['body', 'algorithms']],
    ['clockSkewSeconds 301', { clockSkewSeconds: 301 }, ['body', 'clockSkewSeconds']],
    ['neither jwksUri nor discoveryUrl', { jwksUri: undefined }, ['body', 'jwksUri']],
    [
      'both jwksUri and discoveryUrl',
      { discoveryUrl: 'https://idp.example.com/.well-known' },
      ['body', 'discoveryUrl'],
    ],
    ['a relative jwksUri', { jwksUri: '/jwks' }, ['body', 'jwksUri']],
    ['an empty audience list', { audience: [] }, ['body', 'audience']],
    [
      'a role entry with both roleId and systemKey',
      { roleMapping: { x: { roleId: 'editor', systemKey: 'viewer' } } },
      ['body', 'roleMapping', 'x'],
    ],
    ['an unknown role', { roleMapping: { x: { systemKey: 'owner' } } }, ['body', 'roleMapping', 'x', 'systemKey']],
    ['a missing issuer', { issuer: undefined }, ['body', 'issuer']],
  ])('refuses %s with 422 VALIDATION_FAILED naming the path', async (_name, over, path) => {
    const res = await post(valid({ issuer: `https://bad-${Math.random()}.example.com/`, ...over }));
    expect(res.statusCode).toBe(422);
    expect(res.json().errors[0]).toMatchObject({ code: 'VALIDATION_FAILED', path });
  });

  it('answers a second registration of the same issuer with 409 ISSUER_ALREADY_EXISTS', async () => {
    expect((await post(valid({ issuer: 'https://dup.example.com/' }))).statusCode).toBe(201);
    const res = await post(valid({ issuer: 'https://dup.example.com/', audience: 'other' }));
    expect(res.statusCode).toBe(409);
    expect(res.json().errors[0].code).toBe('ISSUER_ALREADY_EXISTS');
  });

  it('lets exactly one of two concurrent registrations of an issuer win', async () => {
    const both = await Promise.all([0, 1].map(() => post(valid({ issuer: 'https://race.example.com/' }))));
    expect(both.map((r) => r.statusCode).sort()).toEqual([201, 409]);
    const list = await t.call({ method: 'GET', url: URL, as: admin, site: 'main' });
    const raced = list.json().data.filter((i: { issuer: string }) => i.issuer === 'https://race.example.com/');
    expect(raced).toHaveLength(1);
  });

  it('allows the same issuer on another site', async () => {
    expect((await post(valid({ issuer: 'https://shared.example.com/' }))).statusCode).toBe(201);
    expect((await post(valid({ issuer: 'https://shared.example.com/' }), admin, 'second')).statusCode).toBe(201);
  });

  it('is for instance admins only: a site admin and an editor get 403', async () => {
    const siteAdmin = await createUser(t, 'siteadmin@example.com', 'Site-admin-pass-42!', { main: 'site_admin' });
    const editor = await createUser(t, 'editor@example.com', 'Editor-pass-4242!', { main: 'editor' });
    for (const as of [siteAdmin, editor]) {
      expect((await post(valid({ issuer: 'https://nope.example.com/' }), as)).statusCode).toBe(403);
      const list = await t.call({ method: 'GET', url: URL, as, site: 'main' });
      expect(list.statusCode).toBe(403);
      expect(list.json().errors[0].code).toBe('PERMISSION_DENIED');
    }
  });
});

describe('GET, PATCH, DELETE /api/v1/admin/auth/issuers/:id', () => {
  let id: string;
  beforeAll(async () => {
    const res = await post(valid({ issuer: 'https://crud.example.com/' }));
    id = res.json().data.id;
  });

  it('reads the issuer on its own site and answers 404 from another site', async () => {
    expect((await t.call({ method: 'GET', url: `${URL}/${id}`, as: admin, site: 'main' })).json().data.issuer).toBe(
      'https://crud.example.com/',
    );
    const other = await t.call({ method: 'GET', url: `${URL}/${id}`, as: admin, site: 'second' });
    expect(other.statusCode).toBe(404);
    expect(other.json().errors[0].code).toBe('NOT_FOUND');
    const list = await t.call({ method: 'GET', url: URL, as: admin, site: 'second' });
    expect(list.json().data.map((i: { id: string }) => i.id)).not.toContain(id);
    const patch = await t.call({
      method: 'PATCH',
      url: `${URL}/${id}`,
      as: admin,
      site: 'second',
      payload: { enabled: false },
    });
    expect(patch.statusCode).toBe(404);
    expect((await t.call({ method: 'DELETE', url: `${URL}/${id}`, as: admin, site: 'second' })).statusCode).toBe(404);
  });

  it('changes only the named fields', async () => {
    const res = await t.call({
      method: 'PATCH',
      url: `${URL}/${id}`,
      as: admin,
      site: 'main',
      payload: { clockSkewSeconds: 120, defaultRoleId: 'viewer' },
    });
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toMatchObject({
      clockSkewSeconds: 120,
      defaultRoleId: 'viewer',
      enabled: true,
      version: 2,
    });
  });

  it('validates the merged record: switching to discoveryUrl needs jwksUri cleared', async () => {
    const patch = (payload: Record<string, unknown>) =>
      t.call({ method: 'PATCH', url: `${URL}/${id}`, as: admin, site: 'main', payload });
    const both = await patch({ discoveryUrl: 'https://crud.example.com/.well-known/openid-configuration' });
    expect(both.statusCode).toBe(422);
    expect(both.json().errors[0]).toMatchObject({ code: 'VALIDATION_FAILED', path: ['body', 'discoveryUrl'] });
    const skew = await patch({ clockSkewSeconds: 301 });
    expect(skew.statusCode).toBe(422);
    expect(skew.json().errors[0].path).toEqual(['body', 'clockSkewSeconds']);
    const moved = await patch({
      jwksUri: null,
      discoveryUrl: 'https://crud.example.com/.well-known/openid-configuration',
    });
    expect(moved.statusCode).toBe(200);
    expect(moved.json().data).toMatchObject({ jwksUri: null, discoveryUrl: expect.stringContaining('well-known') });
  });

  it('refuses to rename an issuer to an issuer the site already has, and frees the old name on rename', async () => {
    const other = (await post(valid({ issuer: 'https://taken.example.com/' }))).json().data.id;
    const rename = (to: string) =>
      t.call({ method: 'PATCH', url: `${URL}/${other}`, as: admin, site: 'main', payload: { issuer: to } });
    const res = await rename('https://crud.example.com/');
    expect(res.statusCode).toBe(409);
    expect(res.json().errors[0].code).toBe('ISSUER_ALREADY_EXISTS');
    expect((await rename('https://renamed.example.com/')).statusCode).toBe(200);
    expect((await post(valid({ issuer: 'https://taken.example.com/' }))).statusCode).toBe(201);
  });

  it('removes the issuer and lets its issuer value be registered again', async () => {
    const del = await t.call({ method: 'DELETE', url: `${URL}/${id}`, as: admin, site: 'main' });
    expect(del.statusCode).toBe(204);
    expect((await t.call({ method: 'GET', url: `${URL}/${id}`, as: admin, site: 'main' })).statusCode).toBe(404);
    expect((await t.call({ method: 'DELETE', url: `${URL}/${id}`, as: admin, site: 'main' })).statusCode).toBe(404);
    expect((await post(valid({ issuer: 'https://crud.example.com/' }))).statusCode).toBe(201);
  });
});

describe('trusted-issuers read model', () => {
  it('rebuilt from the log equals the one kept incrementally', async () => {
    const rows = async () =>
      (await sql`select * from trusted_issuers order by site_id, issuer_id`.execute(t.deps.database.owner)).rows;
    const before = await rows();
    expect(before.length).toBeGreaterThan(5);
    await t.deps.engine.rebuild('trusted-issuers');
    expect(await rows()).toEqual(before);
  });
});

describe('GET /api/v1/openapi.json', () => {
  it('documents the issuer routes with their body schema', async () => {
    const doc = (await t.call({ method: 'GET', url: '/api/v1/openapi.json' })).json();
    expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining([URL, `${URL}/{id}`]));
    expect(JSON.stringify(doc.paths[URL].post)).toContain('clockSkewSeconds');
  });
});
