import { afterEach, describe, expect, it } from 'vitest';
import pino from 'pino';
import { bootstrap } from '../../bootstrap.ts';
import { loadConfig } from '../../config.ts';
import { collect } from '../../kernel/es/event-store.ts';
import { ADMIN, createTestApp, type TestApp } from '../../../test/setup/app.ts';
import { SETUP_STREAM } from '../../contracts/setup/setup.events.ts';

let t: TestApp;
afterEach(() => t.close());

const complete = (payload: Record<string, unknown>) =>
  t.call({
    method: 'POST',
    url: '/api/v1/setup/complete',
    payload: { siteId: 'acme', siteName: 'Acme', ...ADMIN, ...payload },
  });

describe('POST /api/v1/setup/complete', () => {
  it('creates the first site and its admin with one request, then closes both setup endpoints', async () => {
    t = await createTestApp();
    expect((await t.call({ method: 'GET', url: '/setup/capabilities' })).json()).toEqual({
      data: { setupComplete: false, encryption: { available: false } },
    });
    const res = await complete({ adminPath: '/my-studio' });
    expect(res.statusCode).toBe(201);
    const body = res.json().data;
    expect(body.site).toMatchObject({ id: 'acme', name: 'Acme' });
    expect(body.user).toMatchObject({ email: ADMIN.email, avatar: null });
    expect(body.token).toEqual(expect.any(String));

    const login = await t.call({ method: 'POST', url: '/api/v1/auth/login', payload: ADMIN });
    expect(login.statusCode).toBe(200);
    const me = await t.call({ method: 'GET', url: '/api/v1/auth/me', as: login.json().data.token });
    expect(me.json().data).toMatchObject({ email: ADMIN.email, instanceAdmin: true, sites: { acme: 'admin' } });

    const unknown = await t.call({ method: 'GET', url: '/no-such-route' });
    const caps = await t.call({ method: 'GET', url: '/setup/capabilities' });
    expect(caps.statusCode).toBe(404);
    expect(caps.body).toBe(unknown.body);
    expect((await complete({ siteId: 'other' })).statusCode).toBe(404);
  });

  it('refuses a weak password with the policy reasons and writes nothing', async () => {
    t = await createTestApp();
    const res = await complete({ password: 'short' });
    expect(res.statusCode).toBe(400);
    expect(res.json().errors[0]).toMatchObject({
      code: 'VALIDATION_FAILED',
      path: ['password'],
      extensions: { reason: 'password_policy' },
    });
    expect(await collect(t.deps.store.readStream(SETUP_STREAM))).toEqual([]);
  });

  it('refuses an invalid site id or a reserved admin path', async () => {
    t = await createTestApp();
    expect((await complete({ siteId: 'Not_Valid' })).json().errors[0].path).toEqual(['siteId']);
    expect((await complete({ adminPath: '/admin' })).json().errors[0].path).toEqual(['adminPath']);
  });

  it('needs the setup token when SVC_REQUIRE_SETUP_TOKEN is on', async () => {
    t = await createTestApp({ env: { SVC_REQUIRE_SETUP_TOKEN: 'true', SVC_SETUP_TOKEN: 'the-setup-token' } });
    expect((await complete({})).statusCode).toBe(401);
    expect((await complete({ setupToken: 'wrong' })).json().errors[0].code).toBe('UNAUTHENTICATED');
    expect((await complete({ setupToken: 'the-setup-token' })).statusCode).toBe(201);
  });

  it('lets only one of two concurrent setups win', async () => {
    t = await createTestApp();
    const [a, b] = await Promise.all([complete({ siteId: 'one' }), complete({ siteId: 'two' })]);
    const codes = [a.statusCode, b.statusCode].sort();
    expect(codes[0]).toBe(201);
    // The loser either saw the claim in flight (409) or the finished setup (404).
    expect([404, 409]).toContain(codes[1]);
    const token = (await t.call({ method: 'POST', url: '/api/v1/auth/login', payload: ADMIN })).json().data.token;
    expect((await t.call({ method: 'GET', url: '/api/v1/sites', as: token })).json().data).toHaveLength(1);
  });
});

describe('bootstrap', () => {
  it('runs setup from SVC_ADMIN_EMAIL and SVC_ADMIN_PASSWORD on first start', async () => {
    t = await createTestApp();
    const config = loadConfig({
      SVC_ADMIN_EMAIL: 'boot@example.com',
      SVC_ADMIN_PASSWORD: 'Start-up-pass-99!',
      SVC_SITE_ID: 'boot',
    });
    await bootstrap({ ...t.deps, config }, pino({ level: 'silent' }));
    const login = await t.call({
      method: 'POST',
      url: '/api/v1/auth/login',
      payload: { email: 'boot@example.com', password: 'Start-up-pass-99!' },
    });
    expect(login.statusCode).toBe(200);
    const sites = await t.call({ method: 'GET', url: '/api/v1/sites', as: login.json().data.token });
    expect(sites.json().data.map((s: { id: string }) => s.id)).toEqual(['boot']);
  });

  it('finishes a setup that a crash interrupted after the claim', async () => {
    t = await createTestApp();
    // Make the site step fail: the claim is written, the rest is not.
    const original = t.deps.store.append.bind(t.deps.store);
    t.deps.store.append = async (stream, events, opts) => {
      if (stream.startsWith('acme/site/')) throw new Error('crash');
      return original(stream, events, opts);
    };
    expect((await complete({})).statusCode).toBe(500);
    t.deps.store.append = original;
    expect((await t.call({ method: 'POST', url: '/api/v1/auth/login', payload: ADMIN })).statusCode).toBe(200);
    expect((await t.call({ method: 'GET', url: '/setup/capabilities' })).statusCode).toBe(200);

    await bootstrap(t.deps, pino({ level: 'silent' }));
    expect((await t.call({ method: 'GET', url: '/setup/capabilities' })).statusCode).toBe(404);
    const token = (await t.call({ method: 'POST', url: '/api/v1/auth/login', payload: ADMIN })).json().data.token;
    expect((await t.call({ method: 'GET', url: '/api/v1/site', as: token, site: 'acme' })).json().data.name).toBe(
      'Acme',
    );
  });
});
