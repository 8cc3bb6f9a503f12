import { createPublicKey, generateKeyPairSync } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGitProvider, type GitProviderServer } from '../../../test/support/git-provider.ts';
import { createTestApp, type TestApp } from '../../../test/setup/app.ts';
import { apiClient, firstError } from '../../../test/setup/api.ts';
import { createUser } from '../../../test/setup/users.ts';

/**
 * GitHub App authentication through the API: an integration given an app's id, installation and private key mints
 * installation tokens (the app's JWT, then POST /app/installations/:id/access_tokens on the provider, limited to the
 * repository) and reads the repository with them; the key is write-only and sealed.
 */
let t: TestApp;
let admin: string;
let otherAdmin: string;
let provider: GitProviderServer;
const { call, ok } = apiClient(
  () => t,
  () => admin,
);
const BASE = '/api/v1/integrations/git';
const SECRET = 'a-webhook-secret-of-forty-characters-long';
const rsa = (bits = 2048) =>
  generateKeyPairSync('rsa', {
    modulusLength: bits,
    privateKeyEncoding: { type: 'pkcs1', format: 'pem' },
    publicKeyEncoding: { type: 'spki', format: 'pem' },
  });
const appKeys = rsa();
const strangerKeys = rsa();

const integrate = async (app: object, over: object = {}) =>
  (
    await ok('POST', BASE, {
      provider: 'github',
      repository: 'acme/site',
      baseUrl: provider.githubApi,
      authMethod: 'app',
      webhookSecret: SECRET,
      app,
      sync_config: { branch: 'main', intentsPath: 'content' },
      ...over,
    })
  ).id as string;
const sync = (id: string) => call('POST', `${BASE}/${id}/gitops/sync`, { dryRun: true });
const grantedSince = (n: number) => provider.apps.mints.slice(n).filter((m) => m.outcome === 'granted');

beforeAll(async () => {
  provider = await startGitProvider({ token: 'unused-personal-token' });
  provider.apps.install({ appId: '1001', installationId: '77', publicKey: createPublicKey(appKeys.publicKey) });
  provider.apps.install({
    appId: '1002',
    installationId: '78',
    publicKey: createPublicKey(appKeys.publicKey),
    tokenTtlS: 120,
  });
  await provider.repo.commit('main', {
    'content/a.json': JSON.stringify({ collection: 'articles', id: 'a1', values: { title: 'From the app' } }),
  });
  t = await createTestApp({ env: { SVC_GIT_ALLOW_PRIVATE: 'true' } });
  admin = await t.setup();
  await ok('POST', '/api/v1/sites', { id: 'other', name: 'Other' });
  otherAdmin = await createUser(t, 'oa@example.com', 'Git-app-pass-1!', { other: 'admin' });
  await ok('POST', '/api/v1/collections', { name: 'articles' });
  await ok('POST', '/api/v1/fields/articles', { field: 'title', type: 'string' });
}, 60_000);
afterAll(async () => {
  await t.close();
  await provider.close();
});

describe('GitHub App authentication', () => {
  it('mints an installation token with the app JWT, limited to the repository, and reads with it', async () => {
    const id = await integrate({ appId: '1001', installationId: '77', privateKey: appKeys.privateKey });
    const record = await ok('GET', `${BASE}/${id}`);
    expect(record).toMatchObject({ authMethod: 'app', hasToken: false, app: { appId: '1001', installationId: '77' } });
    expect(JSON.stringify(record)).not.toContain('PRIVATE KEY');
    const listed = (await ok('GET', BASE)) as { id: string; app: unknown }[];
    expect(listed.find((r) => r.id === id)?.app).toEqual({ appId: '1001', installationId: '77' });

    const before = provider.apps.mints.length;
    const res = await sync(id);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data.drift.missing.map((m: { itemId: string }) => m.itemId)).toEqual(['a1']);
    const [mint] = grantedSince(before);
    expect(mint).toBeDefined();
    expect(mint!.installationId).toBe('77');
    expect(mint!.repositories).toEqual(['site']);
    const claims = mint!.claims as { iss: string; iat: number; exp: number };
    expect(claims.iss).toBe('1001');
    expect(claims.exp - claims.iat).toBe(600);
    expect(Math.abs(claims.iat + 60 - Date.now() / 1000)).toBeLessThan(30);
    // The repository was read with that installation token, not the JWT.
    const reads = provider.requests.filter((r) => r.path.startsWith('/api/v3/repos/')).slice(-2);
    expect(reads.every((r) => r.auth === `token ${mint!.token}`)).toBe(true);

    // Held for its hour (less five minutes): the next sync mints nothing.
    expect((await sync(id)).statusCode).toBe(200);
    expect(grantedSince(before)).toHaveLength(1);
  });

  it('mints again when the token held is within five minutes of its end', async () => {
    const id = await integrate({ appId: '1002', installationId: '78', privateKey: appKeys.privateKey });
    const before = provider.apps.mints.length;
    expect((await sync(id)).statusCode).toBe(200);
    expect((await sync(id)).statusCode).toBe(200);
    expect(grantedSince(before)).toHaveLength(2);
  });

  it("answers 502 when the provider refuses the app's JWT (a key that is not the app's), and keeps nothing", async () => {
    const id = await integrate({ appId: '1001', installationId: '77', privateKey: strangerKeys.privateKey });
    const before = provider.apps.mints.length;
    const res = await sync(id);
    expect(res.statusCode, res.body).toBe(502);
    expect(firstError(res.body).code).toBe('GIT_PROVIDER_FAILED');
    expect(provider.apps.mints.slice(before).map((m) => m.outcome)).toEqual(['A JSON web token could not be decoded']);
    // An unknown installation is the provider's 404.
    const unknown = await integrate({ appId: '1001', installationId: '99', privateKey: appKeys.privateKey });
    expect((await sync(unknown)).statusCode).toBe(502);
  });

  it('keeps the key write-only and sealed: not in answers, events or read models', async () => {
    const id = await integrate({ appId: '1001', installationId: '77', privateKey: appKeys.privateKey });
    const body = appKeys.privateKey.split('\n')[1]!;
    const owner = t.deps.database.owner;
    const events = await sql<{ n: number }>`select count(*)::int as n from events
      where data::text like ${`%${body.slice(0, 40)}%`}`.execute(owner);
    expect(events.rows[0]!.n).toBe(0);
    const rows = await sql<{ app: unknown }>`select app from git_integrations where integration_id = ${id}`.execute(
      owner,
    );
    expect(JSON.stringify(rows.rows)).not.toContain('PRIVATE');
  });
});

describe('GitHub App authentication', () => {
  it('drops the app when the host changes without a new one, and replaces or removes it on request', async () => {
    const id = await integrate({ appId: '1001', installationId: '77', privateKey: appKeys.privateKey });
    const moved = await ok('PATCH', `${BASE}/${id}`, { baseUrl: `${provider.url}/elsewhere/api/v3` });
    expect(moved.app).toBeNull();
    const back = await ok('PATCH', `${BASE}/${id}`, {
      baseUrl: provider.githubApi,
      app: { appId: '1001', installationId: '77', privateKey: appKeys.privateKey },
    });
    expect(back.app).toEqual({ appId: '1001', installationId: '77' });
    expect((await sync(id)).statusCode).toBe(200);
    expect((await ok('PATCH', `${BASE}/${id}`, { app: null })).app).toBeNull();
    const res = await sync(id);
    expect(res.statusCode).toBe(409);
    expect(firstError(res.body).code).toBe('GIT_TOKEN_MISSING');
  });

  it('refuses an app where it cannot act, and keys that are not RSA private keys of 2048 bits', async () => {
    const good = { appId: '1001', installationId: '77', privateKey: appKeys.privateKey };
    const create = (over: object) =>
      call('POST', BASE, {
        provider: 'github',
        repository: 'acme/site',
        baseUrl: provider.githubApi,
        authMethod: 'app',
        webhookSecret: SECRET,
        app: good,
        ...over,
      });
    const ec = generateKeyPairSync('ec', {
      namedCurve: 'P-256',
      privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
      publicKeyEncoding: { type: 'spki', format: 'pem' },
    });
    for (const over of [
      { provider: 'gitlab', baseUrl: provider.url },
      { authMethod: 'pat' },
      { app: { ...good, privateKey: 'not a key' } },
      { app: { ...good, privateKey: ec.privateKey } },
      { app: { ...good, privateKey: rsa(1024).privateKey } },
      { app: { ...good, privateKey: appKeys.publicKey } },
      { app: { ...good, installationId: '12345678901234567890' } },
      { app: { ...good, appId: '../1' } },
      { app: JSON.parse(`{"appId":"1","installationId":"2","privateKey":"x","__proto__":{"a":1}}`) as object },
    ]) {
      const res = await create(over);
      expect(res.statusCode, `${JSON.stringify(over).slice(0, 80)}: ${res.body}`).toBe(400);
      expect(firstError(res.body).code).toBe('VALIDATION_FAILED');
      expect(res.body).not.toContain('PRIVATE KEY');
    }
    const id = await integrate(good);
    const res = await call('PATCH', `${BASE}/${id}`, { authMethod: 'pat' });
    expect(res.statusCode).toBe(400);
    expect(firstError(res.body).path).toEqual(['body', 'app']);
  });

  it("is another site's 404, and anonymous callers' 401", async () => {
    const id = await integrate({ appId: '1001', installationId: '77', privateKey: appKeys.privateKey });
    for (const [method, url] of [
      ['GET', `${BASE}/${id}`],
      ['POST', `${BASE}/${id}/gitops/sync`],
    ] as const) {
      expect(
        (await call(method, url, method === 'POST' ? {} : undefined, { as: otherAdmin, site: 'other' })).statusCode,
      ).toBe(404);
      expect((await call(method, url, method === 'POST' ? {} : undefined, { as: null })).statusCode).toBe(401);
    }
    const patched = await call('PATCH', `${BASE}/${id}`, { app: null }, { as: otherAdmin, site: 'other' });
    expect(patched.statusCode).toBe(404);
    expect((await ok('GET', `${BASE}/${id}`)).app).not.toBeNull();
  });
});
