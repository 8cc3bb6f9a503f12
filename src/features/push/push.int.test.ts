import { generateVapidKeys } from '../../platform/push/vapid.ts';
import { createECDH, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/setup/app.ts';
import { apiClient, firstError } from '../../../test/setup/api.ts';
import { createUser } from '../../../test/setup/users.ts';

const vapid = generateVapidKeys();
const browser = (endpoint: string) => {
  const ecdh = createECDH('prime256v1');
  ecdh.generateKeys();
  return {
    endpoint,
    keys: { p256dh: ecdh.getPublicKey().toString('base64url'), auth: randomBytes(16).toString('base64url') },
  };
};

let t: TestApp;
let off: TestApp;
let admin: string;
let editor: string;
let otherAdmin: string;
const { call, ok } = apiClient(
  () => t,
  () => admin,
);
const PASS = 'Long-enough-pass-1!';
const status = async (as: string, site = 'main') =>
  (await ok('GET', '/api/v1/push/status', undefined, { as, site })) as { subscriptions: number };

beforeAll(async () => {
  t = await createTestApp({
    env: { VAPID_PUBLIC_KEY: vapid.pub, VAPID_PRIVATE_KEY: vapid.priv, VAPID_SUBJECT: 'mailto:ops@example.com' },
  });
  admin = await t.setup();
  await ok('POST', '/api/v1/sites', { id: 'other', name: 'Other' });
  editor = await createUser(t, 'ed@example.com', PASS, { main: 'editor' });
  otherAdmin = await createUser(t, 'oa@example.com', PASS, { other: 'admin' });
  off = await createTestApp();
}, 60_000);
afterAll(async () => {
  await t.close();
  await off.close();
});

describe('Web Push settings', () => {
  it('gives the VAPID public key, and 404 PUSH_NOT_CONFIGURED without keys (subscriptions refused alike)', async () => {
    expect(await ok('GET', '/api/v1/push/vapid-public-key')).toEqual({ publicKey: vapid.pub });
    const offAdmin = await off.setup();
    const key = await off.call({ method: 'GET', url: '/api/v1/push/vapid-public-key', as: offAdmin, site: 'main' });
    expect(key.statusCode).toBe(404);
    expect(firstError(key.body).code).toBe('PUSH_NOT_CONFIGURED');
    const sub = await off.call({
      method: 'POST',
      url: '/api/v1/push/subscriptions',
      as: offAdmin,
      site: 'main',
      payload: browser('https://push.example.com/a'),
    });
    expect(sub.statusCode).toBe(404);
    const st = await off.call({ method: 'GET', url: '/api/v1/push/status', as: offAdmin, site: 'main' });
    expect(st.json().data).toEqual({ vapidConfigured: false, realtimeAvailable: true, subscriptions: 0 });
  });
});

describe('push subscriptions', () => {
  it('upserts by endpoint: 201, then 200; status counts the site for admins and their own for others', async () => {
    const b = browser('https://push.example.com/ed-1');
    const first = await call('POST', '/api/v1/push/subscriptions', b, { as: editor });
    expect(first.statusCode, first.body).toBe(201);
    expect(first.json().data).toMatchObject({ endpoint: b.endpoint, id: expect.any(String) });
    expect((await call('POST', '/api/v1/push/subscriptions', b, { as: editor })).statusCode).toBe(200);
    const renewed = { ...b, keys: browser(b.endpoint).keys };
    expect((await call('POST', '/api/v1/push/subscriptions', renewed, { as: editor })).statusCode).toBe(200);
    await ok('POST', '/api/v1/push/subscriptions', browser('https://push.example.com/admin-1'));
    expect((await status(editor)).subscriptions).toBe(1);
    expect((await status(admin)).subscriptions).toBe(2);
    expect(await ok('GET', '/api/v1/push/status')).toMatchObject({ vapidConfigured: true, realtimeAvailable: true });
  });

  it("keeps sites apart: another site's admin counts none of main's and cannot remove them", async () => {
    expect((await status(otherAdmin, 'other')).subscriptions).toBe(0);
    const res = await call(
      'DELETE',
      '/api/v1/push/subscriptions',
      { endpoint: 'https://push.example.com/ed-1' },
      {
        as: otherAdmin,
        site: 'other',
      },
    );
    expect(res.statusCode).toBe(404);
    expect((await status(editor)).subscriptions).toBe(1);
  });

  it('removes only the caller’s own subscription (404 for another user’s), then it is gone', async () => {
    const endpoint = 'https://push.example.com/ed-1';
    expect((await call('DELETE', '/api/v1/push/subscriptions', { endpoint })).statusCode).toBe(404);
    expect((await call('DELETE', '/api/v1/push/subscriptions', { endpoint }, { as: editor })).statusCode).toBe(204);
    expect((await status(editor)).subscriptions).toBe(0);
    expect((await call('DELETE', '/api/v1/push/subscriptions', { endpoint }, { as: editor })).statusCode).toBe(404);
  });

  it('refuses bad keys, non-https and private endpoints, API keys and anonymous callers, never a 500', async () => {
    const good = browser('https://push.example.com/x');
    const bad: [unknown, number, string?][] = [
      [{ ...good, endpoint: 'http://push.example.com/x' }, 400, 'not_https'],
      [{ ...good, endpoint: 'not a url' }, 400, 'not_a_url'],
      [{ ...good, endpoint: 'https://user:pw@push.example.com/x' }, 400, 'credentials'],
      [{ ...good, endpoint: 'https://127.0.0.1/x' }, 400, 'private_address'],
      [{ ...good, endpoint: 'https://[::1]/x' }, 400, 'private_address'],
      [{ ...good, endpoint: 'https://169.254.169.254/latest' }, 400, 'private_address'],
      [{ ...good, endpoint: 'https://localhost/x' }, 400, 'private_address'],
      [{ ...good, endpoint: `https://push.example.com/${'x'.repeat(3000)}` }, 400],
      [{ ...good, keys: { ...good.keys, p256dh: Buffer.alloc(65, 4).toString('base64url') } }, 400],
      [{ ...good, keys: { ...good.keys, p256dh: 'short' } }, 400],
      [{ ...good, keys: { ...good.keys, auth: randomBytes(15).toString('base64url') } }, 400],
      [{ ...good, keys: { ...good.keys, auth: '!!!!' } }, 400],
      [{ endpoint: good.endpoint }, 400],
      [{ ...good, extra: 1 }, 400],
    ];
    for (const [body, code, reason] of bad) {
      const res = await call('POST', '/api/v1/push/subscriptions', body);
      expect(res.statusCode, JSON.stringify(body).slice(0, 120)).toBe(code);
      if (reason) expect(firstError(res.body).extensions.reason).toBe(reason);
    }
    expect((await call('POST', '/api/v1/push/subscriptions', good, { as: null })).statusCode).toBe(401);
    expect((await call('GET', '/api/v1/push/status', undefined, { as: null })).statusCode).toBe(401);
    const key = await ok('POST', '/api/v1/api-keys', { name: 'bot', roleKey: 'editor' });
    const byKey = await call('POST', '/api/v1/push/subscriptions', good, { as: key.key });
    expect(byKey.statusCode).toBe(403);
    expect((await call('DELETE', '/api/v1/push/subscriptions', { endpoint: 'x'.repeat(3000) })).statusCode).toBe(400);
    const hostile = [
      '{"endpoint":"https://push.example.com/p","keys":{"p256dh":"a","auth":"b","__proto__":{"x":1}}}',
      '{"endpoint":"https://push.example.com/p","constructor":{"prototype":{"x":1}}}',
      JSON.stringify({ ...good, endpoint: 'https://push.example.com/\u0000' }),
      JSON.stringify({ ...good, expirationTime: 'soon' }),
      JSON.stringify({ ...good, keys: { ...good.keys, auth: { a: { b: { c: [[[[1]]]] } } } } }),
      JSON.stringify({ ...good, keys: 1e308 }),
    ];
    for (const body of hostile) {
      const res = await call('POST', '/api/v1/push/subscriptions', body, {
        headers: { 'content-type': 'application/json' },
      });
      expect(res.statusCode, body.slice(0, 80)).toBeGreaterThanOrEqual(400);
      expect(res.statusCode, body.slice(0, 80)).toBeLessThan(500);
    }
  });

  it('keeps at most 50 subscriptions per user and site (409 past it), an endpoint saved again still taken', async () => {
    const viewer = await createUser(t, 'many@example.com', PASS, { main: 'viewer' });
    for (let i = 0; i < 50; i++)
      await ok('POST', '/api/v1/push/subscriptions', browser(`https://push.example.com/many-${i}`), { as: viewer });
    const over = await call('POST', '/api/v1/push/subscriptions', browser('https://push.example.com/many-50'), {
      as: viewer,
    });
    expect(over.statusCode).toBe(409);
    expect(firstError(over.body).extensions).toMatchObject({ reason: 'subscription_limit', max: 50 });
    const again = browser('https://push.example.com/many-7');
    expect((await call('POST', '/api/v1/push/subscriptions', again, { as: viewer })).statusCode).toBe(200);
    const others = await call('POST', '/api/v1/push/subscriptions', browser('https://push.example.com/ed-2'), {
      as: editor,
    });
    expect(others.statusCode).toBe(201);
    await call('DELETE', '/api/v1/push/subscriptions', { endpoint: 'https://push.example.com/ed-2' }, { as: editor });
  }, 60_000);

  it('keeps the subscriptions a read model of the log: rebuilt, the counts are the same', async () => {
    const before = [(await status(admin)).subscriptions, (await status(editor)).subscriptions];
    expect(before[0]).toBeGreaterThan(0);
    await t.deps.engine.rebuild('push-subscriptions');
    expect([(await status(admin)).subscriptions, (await status(editor)).subscriptions]).toEqual(before);
  });
});
