import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/setup/app.ts';
import { createUser } from '../../../test/setup/users.ts';

const ISSUERS = '/api/v1/admin/auth/issuers';
const ISS = 'https://idp-ssrf.example.com/';
let t: TestApp;
let instance: string;
let siteAdmin: string;
let server: Server;
let jwksUri: string;
let fetches = 0;

beforeAll(async () => {
  const { publicKey } = await generateKeyPair('RS256');
  const jwk = { ...(await exportJWK(publicKey)), kid: 'known', alg: 'RS256' };
  server = createServer((_req, res) => {
    fetches++;
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ keys: [jwk] }));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  jwksUri = `http://127.0.0.1:${(server.address() as AddressInfo).port}/jwks`;
  t = await createTestApp();
  instance = await t.setup();
  siteAdmin = await createUser(t, 'owner@example.com', 'Owner-pass-4242!', { main: 'admin' });
});
afterAll(async () => {
  await t.close();
  await new Promise<void>((r) => server.close(() => r()));
});

const body = (source: Record<string, string>) => ({
  issuer: ISS,
  audience: 'svc',
  algorithms: ['RS256'],
  roleMapping: { editors: { systemKey: 'editor' } },
  ...source,
});
const register = (source: Record<string, string>, as = instance) =>
  t.call({ method: 'POST', url: ISSUERS, as, site: 'main', payload: body(source) });

/** An unsigned-looking token naming the issuer: anyone can send one, before any key is checked. */
async function tokenWithKid(kid: string): Promise<string> {
  const { privateKey } = await generateKeyPair('RS256');
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({ iss: ISS, aud: 'svc', sub: 'x', iat: now, exp: now + 600, roles: ['editors'] })
    .setProtectedHeader({ alg: 'RS256', kid })
    .sign(privateKey);
}

describe('trusted issuers and outbound requests', () => {
  it('only instance admins manage issuers; a site admin gets 403', async () => {
    expect((await register({ jwksUri: 'https://keys.example.com/jwks' }, siteAdmin)).statusCode).toBe(403);
    expect((await t.call({ method: 'GET', url: ISSUERS, as: siteAdmin, site: 'main' })).statusCode).toBe(403);
  });

  it.each([
    'http://127.0.0.1:9/jwks',
    'http://169.254.169.254/latest/meta-data/',
    'http://10.0.0.1/jwks',
    'http://[::1]/jwks',
    'http://localhost/jwks',
  ])('refuses %s at registration with 422 unless private addresses are allowed', async (url) => {
    const res = await register({ jwksUri: url });
    expect(res.statusCode).toBe(422);
    expect(res.json().errors[0]).toMatchObject({
      path: ['body', 'jwksUri'],
      extensions: { reason: 'private_address' },
    });
    const discovery = await register({ discoveryUrl: url });
    expect(discovery.json().errors[0].extensions.reason).toBe('private_address');
  });

  it('checks again at fetch time: an anonymous token cannot make the service fetch a private address', async () => {
    await t.restart({ SVC_ALLOW_PRIVATE_ISSUERS: 'true' });
    instance = (
      await t.call({
        method: 'POST',
        url: '/api/v1/auth/login',
        payload: { email: 'admin@example.com', password: 'Correct-horse-42!' },
      })
    ).json().data.token;
    expect((await register({ jwksUri })).statusCode).toBe(201);
    await t.restart({ SVC_ALLOW_PRIVATE_ISSUERS: 'false' });
    const before = fetches;
    const res = await t.call({ method: 'GET', url: '/api/v1/site', as: await tokenWithKid('known'), site: 'main' });
    expect(res.statusCode).toBe(401);
    expect(fetches).toBe(before);
  });

  it('fetches one issuer keys at most once per interval, whatever kids tokens name', async () => {
    await t.restart({ SVC_ALLOW_PRIVATE_ISSUERS: 'true' });
    const before = fetches;
    for (let i = 0; i < 25; i++) {
      const res = await t.call({
        method: 'GET',
        url: '/api/v1/site',
        as: await tokenWithKid(`kid-${i}`),
        site: 'main',
      });
      expect(res.statusCode).toBe(401);
    }
    expect(fetches - before).toBeLessThanOrEqual(1);
  });
});

describe('in production', () => {
  it('refuses http key addresses', async () => {
    const p = await createTestApp({ env: { NODE_ENV: 'production' } });
    try {
      const token = await p.setup();
      const res = await p.call({
        method: 'POST',
        url: ISSUERS,
        as: token,
        site: 'main',
        payload: body({ jwksUri: 'http://keys.example.com/jwks' }),
      });
      expect(res.statusCode).toBe(422);
      expect(res.json().errors[0].extensions.reason).toBe('insecure');
    } finally {
      await p.close();
    }
  });
});
