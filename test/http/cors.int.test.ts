import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LightMyRequestResponse } from 'fastify';
import { createTestApp, ADMIN, type TestApp } from '../setup/app.ts';
import { CORS_EXPOSED_HEADERS, CORS_METHODS, CORS_REQUEST_HEADERS } from '../../src/platform/http/cors.ts';

/** The instance's credentialed origins, two sites' own origins, a publishable key's, and one nobody allows. */
const ADMIN_UI = 'https://admin.example.net';
const OPS = 'https://tools.ops.example.net';
const ALPHA = 'https://alpha.example.com';
const BETA = 'https://beta.example.com';
const KIOSK = 'https://kiosk.example.com';
const STRANGER = 'https://stranger.example.org';
const OWN_HOST = 'cms.example.org';

let t: TestApp;
let admin: string;
let key: { id: string; key: string };

const varyOrigin = (res: LightMyRequestResponse) =>
  String(res.headers.vary ?? '')
    .split(',')
    .map((s) => s.trim().toLowerCase())
    .includes('origin');
const preflight = (url: string, origin: string, extra: Record<string, string> = {}) =>
  t.app.inject({
    method: 'OPTIONS',
    url,
    headers: {
      origin,
      'access-control-request-method': 'POST',
      'access-control-request-headers': 'authorization,content-type,x-svc-site',
      ...extra,
    },
  });
const get = (url: string, headers: Record<string, string>, as?: string, site?: string) =>
  t.call({ method: 'GET', url, as, site, headers });
const setCors = (site: string, cors: unknown) =>
  t.call({ method: 'PATCH', url: '/api/v1/site', as: admin, site, payload: { settings: { cors } } });

beforeAll(async () => {
  t = await createTestApp({
    env: {
      SVC_CORS_ORIGINS: `${ADMIN_UI}, https://*.ops.example.net`,
      SVC_CORS_CREDENTIALS: 'true',
      SVC_PUBLIC_URL: `https://${OWN_HOST}`,
    },
  });
  admin = await t.setup();
  for (const id of ['cors-alpha', 'cors-beta']) {
    const res = await t.call({ method: 'POST', url: '/api/v1/sites', as: admin, payload: { id, name: id } });
    expect(res.statusCode, res.body).toBe(201);
  }
  expect((await setCors('cors-alpha', { origins: [ALPHA] })).statusCode).toBe(200);
  expect(
    (await setCors('cors-beta', { origins: [BETA, 'https://*.beta.example.com'], delivery: 'listed' })).statusCode,
  ).toBe(200);
  const created = await t.call({
    method: 'POST',
    url: '/api/v1/api-keys',
    as: admin,
    site: 'main',
    payload: { name: 'Kiosk', roleKey: 'viewer', publishable: true, allowedOrigins: [KIOSK] },
  });
  expect(created.statusCode, created.body).toBe(201);
  key = created.json().data;
});
afterAll(() => t.close());

describe('CORS preflights', () => {
  it('answer an instance origin with the API methods and headers, cookies allowed', async () => {
    const res = await preflight('/api/v1/auth/refresh', ADMIN_UI);
    expect(res.statusCode).toBe(204);
    expect(res.headers).toMatchObject({
      'access-control-allow-origin': ADMIN_UI,
      'access-control-allow-credentials': 'true',
      'access-control-allow-methods': CORS_METHODS.join(', '),
      'access-control-allow-headers': CORS_REQUEST_HEADERS.join(', '),
      'access-control-max-age': '600',
    });
    expect(varyOrigin(res)).toBe(true);
    expect((await preflight('/api/v1/items/x', OPS)).headers['access-control-allow-origin']).toBe(OPS);
  });

  it('answer an origin some site allows, without cookies', async () => {
    for (const origin of [ALPHA, BETA, 'https://shop.beta.example.com', KIOSK]) {
      const res = await preflight('/api/v1/items/articles', origin);
      expect(res.statusCode, origin).toBe(204);
      expect(res.headers['access-control-allow-origin']).toBe(origin);
      expect(res.headers['access-control-allow-credentials']).toBeUndefined();
    }
  });

  it('refuse an origin nobody allows with the plain 404, Vary: Origin and no CORS header', async () => {
    for (const origin of [STRANGER, 'https://example.com', 'https://ops.example.net', 'null']) {
      const res = await preflight('/api/v1/items/articles', origin);
      expect(res.statusCode, origin).toBe(404);
      expect(res.json().errors[0].code).toBe('NOT_FOUND');
      expect(res.headers['access-control-allow-origin']).toBeUndefined();
      expect(res.headers['access-control-allow-methods']).toBeUndefined();
      expect(varyOrigin(res)).toBe(true);
    }
  });

  it("count only the subdomain's site when the host names one", async () => {
    const host = { host: `cors-beta.${OWN_HOST}` };
    expect((await preflight('/api/v1/items/articles', BETA, host)).statusCode).toBe(204);
    expect((await preflight('/api/v1/items/articles', ALPHA, host)).statusCode).toBe(404);
    expect((await preflight('/api/v1/items/articles', KIOSK, host)).statusCode).toBe(404);
    expect((await preflight('/api/v1/items/articles', KIOSK, { host: `main.${OWN_HOST}` })).statusCode).toBe(204);
    expect((await preflight('/api/v1/items/articles', ADMIN_UI, host)).statusCode).toBe(204);
  });

  it('are not taken for an OPTIONS without a requested method', async () => {
    const res = await t.app.inject({ method: 'OPTIONS', url: '/api/v1/site', headers: { origin: ADMIN_UI } });
    expect(res.statusCode).toBe(404);
    expect(res.headers['access-control-allow-methods']).toBeUndefined();
  });
});

describe('CORS on actual answers', () => {
  it('name an instance origin with credentials and the exposed headers, on every site', async () => {
    const res = await get('/api/v1/site', { origin: ADMIN_UI }, admin, 'cors-alpha');
    expect(res.statusCode).toBe(200);
    expect(res.headers).toMatchObject({
      'access-control-allow-origin': ADMIN_UI,
      'access-control-allow-credentials': 'true',
      'access-control-expose-headers': CORS_EXPOSED_HEADERS.join(', '),
    });
    expect(varyOrigin(res)).toBe(true);
  });

  it("name a site's origin on that site's answers only, never with credentials", async () => {
    const own = await get('/api/v1/site', { origin: ALPHA }, admin, 'cors-alpha');
    expect(own.statusCode).toBe(200);
    expect(own.headers['access-control-allow-origin']).toBe(ALPHA);
    expect(own.headers['access-control-allow-credentials']).toBeUndefined();
    const other = await get('/api/v1/site', { origin: ALPHA }, admin, 'cors-beta');
    expect(other.statusCode).toBe(200);
    expect(other.headers['access-control-allow-origin']).toBeUndefined();
    expect(varyOrigin(other)).toBe(true);
    const bySubdomain = await get('/api/v1/site', { origin: BETA, host: `cors-beta.${OWN_HOST}` }, admin);
    expect(bySubdomain.headers['access-control-allow-origin']).toBe(BETA);
  });

  it('carry the decision on 4xx envelopes too', async () => {
    const res = await get('/api/v1/site', { origin: ALPHA }, undefined, 'cors-alpha');
    expect(res.statusCode).toBe(401);
    expect(res.headers['access-control-allow-origin']).toBe(ALPHA);
    expect(varyOrigin(res)).toBe(true);
    const refused = await get('/api/v1/site', { origin: STRANGER }, undefined, 'cors-alpha');
    expect(refused.statusCode).toBe(401);
    expect(refused.headers['access-control-allow-origin']).toBeUndefined();
    expect(varyOrigin(refused)).toBe(true);
  });

  it('name no origin on a request without one, and still vary on it', async () => {
    const res = await get('/api/v1/site', {}, admin, 'cors-alpha');
    expect(res.headers['access-control-allow-origin']).toBeUndefined();
    expect(varyOrigin(res)).toBe(true);
  });
});

describe('publishable keys from a browser', () => {
  it("name the key's origin for requests that carry the key, on its site", async () => {
    const res = await get('/api/v1/collections', { origin: KIOSK }, key.key, 'main');
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers['access-control-allow-origin']).toBe(KIOSK);
    expect(res.headers['access-control-allow-credentials']).toBeUndefined();
    const without = await get('/api/v1/collections', { origin: KIOSK }, admin, 'main');
    expect(without.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('accept a request without Origin only from the service itself', async () => {
    const bare = await get('/api/v1/collections', {}, key.key, 'main');
    expect(bare.statusCode).toBe(403);
    const fetchSite = await get('/api/v1/collections', { 'sec-fetch-site': 'same-origin' }, key.key, 'main');
    expect(fetchSite.statusCode, fetchSite.body).toBe(200);
    const ownHost = await get('/api/v1/collections', { host: OWN_HOST }, key.key, 'main');
    expect(ownHost.statusCode, ownHost.body).toBe(200);
    const crossSite = await get('/api/v1/collections', { 'sec-fetch-site': 'cross-site' }, key.key, 'main');
    expect(crossSite.statusCode).toBe(403);
    const elsewhere = await get('/api/v1/collections', { origin: STRANGER, host: OWN_HOST }, key.key, 'main');
    expect(elsewhere.statusCode).toBe(403);
  });

  it('stop being answered once the key is revoked', async () => {
    const other = await t.call({
      method: 'POST',
      url: '/api/v1/api-keys',
      as: admin,
      site: 'main',
      payload: { name: 'Gone', roleKey: 'viewer', publishable: true, allowedOrigins: ['https://gone.example.com'] },
    });
    expect((await preflight('/api/v1/items/x', 'https://gone.example.com')).statusCode).toBe(204);
    const del = await t.call({
      method: 'DELETE',
      url: `/api/v1/api-keys/${other.json().data.id}`,
      as: admin,
      site: 'main',
    });
    expect(del.statusCode, del.body).toBeLessThan(300);
    expect((await preflight('/api/v1/items/x', 'https://gone.example.com')).statusCode).toBe(404);
  });
});

describe('public delivery', () => {
  it('answers every origin with *, without credentials', async () => {
    for (const origin of [STRANGER, ALPHA]) {
      const res = await get('/api/v1/deliver/page/cors-alpha/home', { origin });
      expect(res.statusCode).toBe(404);
      expect(res.headers['access-control-allow-origin']).toBe('*');
      expect(res.headers['access-control-allow-credentials']).toBeUndefined();
    }
    const pre = await preflight('/api/v1/deliver/assets/cors-alpha/x', STRANGER);
    expect(pre.statusCode).toBe(204);
    expect(pre.headers).toMatchObject({
      'access-control-allow-origin': '*',
      'access-control-allow-methods': 'GET, HEAD',
    });
  });

  it("answers only the site's listed origins when the site narrows it", async () => {
    const listed = await get('/api/v1/deliver/page/cors-beta/home', { origin: BETA });
    expect(listed.headers['access-control-allow-origin']).toBe(BETA);
    const instance = await get('/api/v1/deliver/page/cors-beta/home', { origin: ADMIN_UI });
    expect(instance.headers['access-control-allow-origin']).toBe(ADMIN_UI);
    expect(instance.headers['access-control-allow-credentials']).toBeUndefined();
    for (const origin of [STRANGER, ALPHA]) {
      const res = await get('/api/v1/deliver/page/cors-beta/home', { origin });
      expect(res.headers['access-control-allow-origin'], origin).toBeUndefined();
      expect(varyOrigin(res)).toBe(true);
    }
  });
});

describe('the refresh cookie across origins', () => {
  it('is rotated from an instance origin with X-Svc-Refresh, and the answer readable with credentials', async () => {
    const login = await t.app.inject({
      method: 'POST',
      url: '/api/v1/auth/login',
      headers: { origin: ADMIN_UI },
      payload: ADMIN,
    });
    expect(login.statusCode).toBe(200);
    expect(login.headers['access-control-allow-credentials']).toBe('true');
    const cookie = login.cookies.find((c) => c.name === 'svc_refresh')!;
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/auth/refresh',
      headers: { origin: ADMIN_UI, 'x-svc-refresh': '1' },
      cookies: { svc_refresh: cookie.value },
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers['access-control-allow-origin']).toBe(ADMIN_UI);
    expect(res.headers['access-control-allow-credentials']).toBe('true');
  });

  it("is never allowed for a site's origin: its preflight and answers lack Allow-Credentials", async () => {
    const pre = await preflight('/api/v1/auth/refresh', ALPHA, { 'access-control-request-headers': 'x-svc-refresh' });
    expect(pre.statusCode).toBe(204);
    expect(pre.headers['access-control-allow-credentials']).toBeUndefined();
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/auth/refresh',
      headers: { origin: ALPHA, 'x-svc-site': 'cors-alpha' },
    });
    expect(res.headers['access-control-allow-credentials']).toBeUndefined();
  });
});

describe('PATCH /api/v1/site cors', () => {
  it.each([
    ['*', 0],
    ['https://example.com/app', 0],
    ['example.com', 0],
    ['https://*.com', 0],
    ['https://a.*.example.com', 0],
    ['https://*example.com', 0],
    ['ftp://example.com', 0],
    ['https://Example.com', 0],
  ])('refuses %j with 400 CORS_ORIGIN_INVALID at its index', async (bad) => {
    const res = await setCors('cors-alpha', { origins: [ALPHA, bad] });
    expect(res.statusCode).toBe(400);
    expect(res.json().errors[0]).toMatchObject({
      code: 'CORS_ORIGIN_INVALID',
      path: ['settings', 'cors', 'origins', '1'],
    });
  });

  it('refuses an unknown key or a wrong delivery mode with VALIDATION_FAILED', async () => {
    for (const cors of [
      { origins: [ALPHA], credentials: true },
      { origins: [ALPHA], delivery: 'some' },
    ]) {
      const res = await setCors('cors-alpha', cors);
      expect(res.statusCode).toBe(400);
      expect(res.json().errors[0].code).toBe('VALIDATION_FAILED');
    }
  });

  it('takes effect on the next preflight, on its own site only', async () => {
    const fresh = 'https://fresh.example.com';
    expect((await preflight('/api/v1/items/x', fresh)).statusCode).toBe(404);
    expect((await setCors('cors-alpha', { origins: [ALPHA, fresh] })).statusCode).toBe(200);
    expect((await preflight('/api/v1/items/x', fresh)).statusCode).toBe(204);
    const site = await get('/api/v1/site', {}, admin, 'cors-alpha');
    expect(site.json().data.settings.cors).toEqual({ origins: [ALPHA, fresh] });
    const beta = await get('/api/v1/site', { origin: fresh }, admin, 'cors-beta');
    expect(beta.headers['access-control-allow-origin']).toBeUndefined();
  });
});
