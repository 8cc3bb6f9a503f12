import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/setup/app.ts';

const LISTED = 'https://listed.example.com';
const STRANGER = 'https://stranger.example.org';

let t: TestApp;
let admin: string;

beforeAll(async () => {
  t = await createTestApp({ env: { SVC_PUBLIC_URL: 'https://cms.example.org' } });
  admin = await t.setup();
  const res = await t.call({ method: 'POST', url: '/api/v1/sites', as: admin, payload: { id: 'narrow', name: 'N' } });
  expect(res.statusCode, res.body).toBe(201);
  const set = await t.call({
    method: 'PATCH',
    url: '/api/v1/site',
    as: admin,
    site: 'narrow',
    payload: { settings: { cors: { origins: [LISTED], delivery: 'listed' } } },
  });
  expect(set.statusCode, set.body).toBe(200);
});
afterAll(() => t.close());

describe('public delivery of a site that lists its origins', () => {
  it.each([
    '/api/v1/deliver/page/%6Earrow/home',
    '/api/v1/deliver/page/n%61rrow/home',
    '/api/v1/deliver/assets/%6earrow/x',
  ])('answers no other origin when the site id in %s is percent-encoded', async (url) => {
    const res = await t.app.inject({ method: 'GET', url, headers: { origin: STRANGER } });
    expect(res.statusCode).toBe(404);
    expect(res.headers['access-control-allow-origin']).toBeUndefined();
    const pre = await t.app.inject({
      method: 'OPTIONS',
      url,
      headers: { origin: STRANGER, 'access-control-request-method': 'GET' },
    });
    expect(pre.headers['access-control-allow-origin']).toBeUndefined();
  });
});

describe('a preflight to the service’s own host', () => {
  it('is answered for a site’s origin: the first label of SVC_PUBLIC_URL names no site', async () => {
    const ask = (host: string) =>
      t.app.inject({
        method: 'OPTIONS',
        url: '/api/v1/items/posts',
        headers: {
          host,
          origin: LISTED,
          'access-control-request-method': 'GET',
          'access-control-request-headers': 'authorization,x-svc-site',
        },
      });
    const own = await ask('cms.example.org');
    expect(own.statusCode).toBe(204);
    expect(own.headers['access-control-allow-origin']).toBe(LISTED);
    // A subdomain still counts only its own site.
    expect((await ask('narrow.example.org')).headers['access-control-allow-origin']).toBe(LISTED);
    expect((await ask('main.example.org')).statusCode).toBe(404);
  });
});
