import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../config.ts';
import { createTestApp, type TestApp } from '../../../test/setup/app.ts';

const SCIM = 'scim-token-0123456789abcdef';

describe('SCIM_TOKEN', () => {
  let t: TestApp;
  let admin: string;
  beforeAll(async () => {
    t = await createTestApp({ env: { SCIM_TOKEN: SCIM } });
    admin = await t.setup();
  });
  afterAll(() => t.close());

  it('opens /scim/v2/ and nothing else; other tokens cannot enter /scim/v2/', async () => {
    const ok = await t.call({ method: 'GET', url: '/scim/v2/ServiceProviderConfig', as: SCIM });
    expect(ok.statusCode).toBe(200);
    expect(ok.headers['content-type']).toMatch(/application\/scim\+json/);
    expect(ok.json().schemas).toEqual(['urn:ietf:params:scim:schemas:core:2.0:ServiceProviderConfig']);
    expect((await t.call({ method: 'GET', url: '/scim/v2/ServiceProviderConfig' })).statusCode).toBe(401);
    expect((await t.call({ method: 'GET', url: '/scim/v2/ServiceProviderConfig', as: 'wrong-token' })).statusCode).toBe(
      401,
    );
    expect((await t.call({ method: 'GET', url: '/scim/v2/ServiceProviderConfig', as: admin })).statusCode).toBe(403);
    expect((await t.call({ method: 'GET', url: '/api/v1/sites', as: SCIM })).statusCode).toBe(401);
  });
});

describe('SVC_DEV_AUTH', () => {
  it('lets token-less requests act as the instance admin in development', async () => {
    const t = await createTestApp({ env: { SVC_DEV_AUTH: 'true' } });
    try {
      await t.setup();
      const res = await t.call({ method: 'GET', url: '/api/v1/site', site: 'main' });
      expect(res.statusCode).toBe(200);
      expect((await t.call({ method: 'GET', url: '/api/v1/auth/me' })).json().data.instanceAdmin).toBe(true);
    } finally {
      await t.close();
    }
  });

  it('is refused at start in production', () => {
    expect(() => loadConfig({ SVC_DEV_AUTH: 'true', NODE_ENV: 'production' })).toThrow(/SVC_DEV_AUTH/);
    expect(() => loadConfig({ SVC_DEV_AUTH: 'false', NODE_ENV: 'production' })).not.toThrow();
  });

  it('is off by default', async () => {
    const t = await createTestApp();
    try {
      await t.setup();
      expect((await t.call({ method: 'GET', url: '/api/v1/site', site: 'main' })).statusCode).toBe(401);
    } finally {
      await t.close();
    }
  });
});
