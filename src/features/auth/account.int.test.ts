import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, createTestApp, type TestApp } from '../../../test/setup/app.ts';

let t: TestApp;
let admin: string;
const PASSWORD = 'Account-pass-7788!';

/** A call, then the work its answer left for later (sign-up's outcome, a recovery mail) has ended. */
async function post(
  url: string,
  payload: Record<string, unknown>,
  opts: { site?: string; remoteAddress?: string } = {},
) {
  const res = await t.call({ method: 'POST', url, payload, ...opts });
  await t.deps.afterAnswer.settled();
  return res;
}
const outbox = async (to: string) =>
  (await t.call({ method: 'GET', url: `/api/v1/admin/outbox?to=${encodeURIComponent(to)}`, as: admin })).json()
    .data as { kind: string; body: string; siteId: string }[];
const tokenIn = (body: string) => /Token: (\S+)/.exec(body)![1]!;

beforeAll(async () => {
  t = await createTestApp();
  admin = await t.setup();
  await t.call({
    method: 'PATCH',
    url: '/api/v1/site',
    as: admin,
    site: 'main',
    payload: { settings: { public_registration: true } },
  });
  await t.call({ method: 'POST', url: '/api/v1/sites', as: admin, payload: { id: 'closed', name: 'Closed' } });
});
afterAll(() => t.close());

describe('POST /api/v1/auth/register', () => {
  it('answers 202 generically, signs up an unverified subscriber, and mails a verification link', async () => {
    const res = await post('/api/v1/auth/register', { email: 'New@Example.com', password: PASSWORD }, { site: 'main' });
    expect(res.statusCode).toBe(202);
    const mails = await outbox('new@example.com');
    expect(mails).toHaveLength(1);
    expect(mails[0]).toMatchObject({ kind: 'verify-email', siteId: 'main' });
    const before = await post('/api/v1/auth/login', { email: 'new@example.com', password: PASSWORD });
    expect(before.statusCode).toBe(403);
    expect(before.json().errors[0].extensions.reason).toBe('email_not_verified');
    const verify = await post('/api/v1/auth/verify-email', { token: tokenIn(mails[0]!.body) });
    expect(verify.statusCode).toBe(200);
    const after = await post('/api/v1/auth/login', { email: 'new@example.com', password: PASSWORD });
    expect(after.statusCode).toBe(200);
    const me = await t.call({ method: 'GET', url: '/api/v1/auth/me', as: after.json().data.token });
    expect(me.json().data.sites).toEqual({ main: 'subscriber' });
  });

  it('answers before the outcome: while the work after the answer is held, neither address has changed', async () => {
    const release = t.deps.afterAnswer.hold();
    let answers;
    try {
      answers = await Promise.all(
        ['held@example.com', 'new@example.com'].map((email) =>
          t.call({
            method: 'POST',
            url: '/api/v1/auth/register',
            payload: { email, password: PASSWORD },
            site: 'main',
          }),
        ),
      );
      expect(answers.map((r) => r.statusCode)).toEqual([202, 202]);
      expect(await outbox('held@example.com')).toEqual([]);
      expect((await outbox('new@example.com')).map((m) => m.kind)).toEqual(['verify-email']);
      const early = await t.call({
        method: 'POST',
        url: '/api/v1/auth/login',
        payload: { email: 'held@example.com', password: PASSWORD },
      });
      expect(early.statusCode).toBe(401);
    } finally {
      release();
    }
    await t.deps.afterAnswer.settled();
    expect((await outbox('held@example.com')).map((m) => m.kind)).toEqual(['verify-email']);
    expect((await outbox('new@example.com')).map((m) => m.kind).sort()).toEqual(['account-exists', 'verify-email']);
    const later = await post('/api/v1/auth/login', { email: 'held@example.com', password: PASSWORD });
    expect(later.json().errors[0].extensions.reason).toBe('email_not_verified');
  });

  it('gives an existing address the same answer, changes nothing, and tells its owner by mail', async () => {
    const res = await post('/api/v1/auth/register', { email: ADMIN.email, password: PASSWORD }, { site: 'main' });
    const fresh = await post(
      '/api/v1/auth/register',
      { email: 'fresh@example.com', password: PASSWORD },
      { site: 'main' },
    );
    expect(res.statusCode).toBe(202);
    expect(res.body).toBe(fresh.body);
    expect((await outbox(ADMIN.email)).map((m) => m.kind)).toEqual(['account-exists']);
    expect((await post('/api/v1/auth/login', ADMIN)).statusCode).toBe(200);
  });

  it('lets one of two concurrent sign-ups with the same address win', async () => {
    const both = await Promise.all(
      [0, 1].map(() =>
        post('/api/v1/auth/register', { email: 'race@example.com', password: PASSWORD }, { site: 'main' }),
      ),
    );
    expect(both.map((r) => r.statusCode)).toEqual([202, 202]);
    expect((await outbox('race@example.com')).filter((m) => m.kind === 'verify-email')).toHaveLength(1);
  });

  it('applies the password policy, validates the address, and refuses sites without sign-up', async () => {
    const weak = await post(
      '/api/v1/auth/register',
      { email: 'weak@example.com', password: 'password' },
      { site: 'main' },
    );
    expect(weak.statusCode).toBe(400);
    expect(weak.json().errors[0].extensions.reason).toBe('password_policy');
    const bad = await post('/api/v1/auth/register', { email: 'not-an-email', password: PASSWORD }, { site: 'main' });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().errors[0].path).toEqual(['body', 'email']);
    const closed = await post(
      '/api/v1/auth/register',
      { email: 'c@example.com', password: PASSWORD },
      { site: 'closed' },
    );
    expect(closed.statusCode).toBe(403);
    const none = await post('/api/v1/auth/register', { email: 'c@example.com', password: PASSWORD });
    expect(none.statusCode).toBe(400);
    expect(await outbox('c@example.com')).toEqual([]);
  });

  it('is rate limited per IP with the limit headers', async () => {
    const u = await createTestApp({ env: { SVC_REGISTER_MAX_PER_IP: '1' } });
    try {
      const a = await u.setup();
      await u.call({
        method: 'PATCH',
        url: '/api/v1/site',
        as: a,
        site: 'main',
        payload: { settings: { public_registration: true } },
      });
      const reg = (email: string) =>
        u.call({ method: 'POST', url: '/api/v1/auth/register', site: 'main', payload: { email, password: PASSWORD } });
      expect((await reg('r1@example.com')).statusCode).toBe(202);
      const limited = await reg('r2@example.com');
      expect(limited.statusCode).toBe(429);
      expect(limited.headers['retry-after']).toBeDefined();
      expect(limited.headers['x-ratelimit-reset']).toBeDefined();
    } finally {
      await u.close();
    }
  });
});

describe('verify-email and resend-verification', () => {
  it('refuses a bad or foreign-purpose token and resends only to unverified accounts', async () => {
    expect((await post('/api/v1/auth/verify-email', { token: 'garbage' })).json().errors[0]).toMatchObject({
      code: 'VALIDATION_FAILED',
      path: ['token'],
    });
    const access = (await post('/api/v1/auth/login', ADMIN)).json().data.token;
    expect((await post('/api/v1/auth/verify-email', { token: access })).statusCode).toBe(400);
    await post('/api/v1/auth/register', { email: 'late@example.com', password: PASSWORD }, { site: 'main' });
    const resent = await post('/api/v1/auth/resend-verification', { email: 'late@example.com' });
    const unknown = await post('/api/v1/auth/resend-verification', { email: 'nobody@example.com' });
    const verified = await post('/api/v1/auth/resend-verification', { email: ADMIN.email });
    expect([resent.statusCode, unknown.statusCode, verified.statusCode]).toEqual([202, 202, 202]);
    expect(new Set([resent.body, unknown.body, verified.body]).size).toBe(1);
    expect((await outbox('late@example.com')).filter((m) => m.kind === 'verify-email')).toHaveLength(2);
    expect((await outbox(ADMIN.email)).filter((m) => m.kind === 'verify-email')).toHaveLength(0);
  });
});

describe('forgot-password and reset-password', () => {
  it('mails a one-use reset link that sets the password and ends every session', async () => {
    await post('/api/v1/auth/register', { email: 'forgot@example.com', password: PASSWORD }, { site: 'main' });
    await post('/api/v1/auth/verify-email', { token: tokenIn((await outbox('forgot@example.com'))[0]!.body) });
    const session = (await post('/api/v1/auth/login', { email: 'forgot@example.com', password: PASSWORD })).json().data;
    const known = await post(
      '/api/v1/auth/forgot-password',
      { email: 'forgot@example.com' },
      { remoteAddress: '10.1.0.1' },
    );
    const unknown = await post(
      '/api/v1/auth/forgot-password',
      { email: 'nope@example.com' },
      { remoteAddress: '10.1.0.1' },
    );
    expect([known.statusCode, unknown.statusCode]).toEqual([202, 202]);
    expect(known.body).toBe(unknown.body);
    const token = tokenIn((await outbox('forgot@example.com')).find((m) => m.kind === 'reset-password')!.body);
    const weak = await post('/api/v1/auth/reset-password', { token, password: 'weak' });
    expect(weak.statusCode).toBe(400);
    const ok = await post('/api/v1/auth/reset-password', { token, password: 'Brand-new-pass-999!' });
    expect(ok.statusCode).toBe(200);
    expect(
      (await post('/api/v1/auth/reset-password', { token, password: 'Other-new-pass-999!' })).json().errors[0],
    ).toMatchObject({ code: 'VALIDATION_FAILED', path: ['token'] });
    expect((await t.call({ method: 'GET', url: '/api/v1/auth/me', as: session.token })).statusCode).toBe(401);
    expect((await post('/api/v1/auth/refresh', { refreshToken: session.refreshToken })).statusCode).toBe(401);
    expect((await post('/api/v1/auth/login', { email: 'forgot@example.com', password: PASSWORD })).statusCode).toBe(
      401,
    );
    expect(
      (await post('/api/v1/auth/login', { email: 'forgot@example.com', password: 'Brand-new-pass-999!' })).statusCode,
    ).toBe(200);
  });

  it('limits recovery requests to 3 per IP per hour', async () => {
    const u = await createTestApp({ env: { SVC_RECOVERY_MAX_PER_IP: '3' } });
    try {
      const ask = () =>
        u.call({ method: 'POST', url: '/api/v1/auth/forgot-password', payload: { email: 'x@example.com' } });
      for (let i = 0; i < 3; i++) expect((await ask()).statusCode).toBe(202);
      const limited = await ask();
      expect(limited.statusCode).toBe(429);
      expect(limited.json().errors[0].code).toBe('RATE_LIMITED');
      expect(Number(limited.headers['retry-after'])).toBeGreaterThan(3000);
    } finally {
      await u.close();
    }
  });

  it('keeps the outbox for administrators', async () => {
    const viewer = (await post('/api/v1/auth/login', { email: 'new@example.com', password: PASSWORD })).json().data
      .token;
    expect((await t.call({ method: 'GET', url: '/api/v1/admin/outbox', as: viewer })).statusCode).toBe(403);
    expect((await t.call({ method: 'GET', url: '/api/v1/admin/outbox' })).statusCode).toBe(401);
  });
});
