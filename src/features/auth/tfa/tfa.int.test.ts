import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../kernel/clock.ts';
import { createTestApp, type TestApp } from '../../../../test/setup/app.ts';
import { createUser } from '../../../../test/setup/users.ts';
import { codeAt } from './totp.ts';

const KEY_A = Buffer.alloc(32, 7).toString('base64');
const KEY_B = Buffer.alloc(32, 9).toString('base64');
const PASSWORD = 'Second-factor-2025!';

let t: TestApp;
const clock = new ManualClock(new Date());
const tick = () => clock.advance(30_000);
const code = (secret: string) => codeAt(secret, clock.now().getTime());
const post = (url: string, payload: object, as?: string) => t.call({ method: 'POST', url, payload, as });
const login = (email: string) => post('/api/v1/auth/login', { email, password: PASSWORD });

/** A user with TOTP on: returns its secret, recovery codes and a fresh session token. */
async function enrolled(email: string) {
  const token = await createUser(t, email, PASSWORD, { main: 'editor' });
  const setup = await post('/api/v1/me/tfa/setup', { password: PASSWORD }, token);
  expect(setup.statusCode, setup.body).toBe(200);
  const { secret, otpauthUrl } = setup.json().data;
  expect(otpauthUrl).toMatch(/^otpauth:\/\/totp\//);
  tick();
  const confirm = await post('/api/v1/me/tfa/confirm', { code: code(secret) }, token);
  expect(confirm.statusCode, confirm.body).toBe(200);
  tick();
  return { secret: secret as string, recoveryCodes: confirm.json().data.recoveryCodes as string[], token };
}

beforeAll(async () => {
  t = await createTestApp({ env: { ENCRYPTION_KEY: KEY_A }, clock });
  await t.setup();
});
afterAll(() => t.close());

describe('TOTP enrollment', () => {
  it('issues a seed after the password, turns on with a live code, and returns eight recovery codes', async () => {
    const token = await createUser(t, 'enrol@example.com', PASSWORD, { main: 'viewer' });
    expect((await t.call({ method: 'GET', url: '/api/v1/me/tfa', as: token })).json().data).toEqual({
      enabled: false,
      enrolledAt: null,
      recoveryCodesRemaining: 0,
    });
    expect((await post('/api/v1/me/tfa/setup', { password: 'wrong' }, token)).statusCode).toBe(401);
    const { secret } = (await post('/api/v1/me/tfa/setup', { password: PASSWORD }, token)).json().data;
    expect(secret).toMatch(/^[A-Z2-7]+=*$/);
    const wrong = await post('/api/v1/me/tfa/confirm', { code: '000000' }, token);
    expect(wrong.statusCode).toBe(400);
    expect(wrong.json().errors[0].path).toEqual(['code']);
    tick();
    const ok = await post('/api/v1/me/tfa/confirm', { code: code(secret) }, token);
    expect(ok.json().data.recoveryCodes).toHaveLength(8);
    expect(new Set(ok.json().data.recoveryCodes).size).toBe(8);
    const status = (await t.call({ method: 'GET', url: '/api/v1/me/tfa', as: token })).json().data;
    expect(status).toMatchObject({ enabled: true, recoveryCodesRemaining: 8 });
    expect((await post('/api/v1/me/tfa/setup', { password: PASSWORD }, token)).statusCode).toBe(409);
  });

  it('answers 503 ENCRYPTION_NOT_CONFIGURED without a key and writes nothing', async () => {
    const u = await createTestApp();
    try {
      await u.setup();
      const token = await createUser(u, 'nokey@example.com', PASSWORD, { main: 'viewer' });
      const id = (await u.call({ method: 'GET', url: '/api/v1/auth/me', as: token })).json().data.id;
      const res = await u.call({
        method: 'POST',
        url: '/api/v1/me/tfa/setup',
        payload: { password: PASSWORD },
        as: token,
      });
      expect(res.statusCode).toBe(503);
      expect(res.json().errors[0].code).toBe('ENCRYPTION_NOT_CONFIGURED');
      const n = await sql<{
        n: number;
      }>`select count(*)::int as n from events where stream_id = ${`_system/tfa/${id}`}`.execute(u.deps.database.owner);
      expect(n.rows[0]!.n).toBe(0);
    } finally {
      await u.close();
    }
  });
});

describe('login with a second factor', () => {
  it('answers a challenge, which cannot act as a session and works once', async () => {
    const { secret } = await enrolled('mfa@example.com');
    const first = await login('mfa@example.com');
    expect(first.statusCode).toBe(200);
    const challenge = first.json().data;
    expect(challenge).toEqual({ status: 'mfa_required', challengeToken: expect.any(String), expiresIn: 300 });
    expect(first.headers['set-cookie']).toBeUndefined();
    expect((await t.call({ method: 'GET', url: '/api/v1/auth/me', as: challenge.challengeToken })).statusCode).toBe(
      401,
    );
    expect(
      (await post('/api/v1/auth/verify-totp', { challengeToken: challenge.challengeToken, code: '123456' })).statusCode,
    ).toBe(401);
    const ok = await post('/api/v1/auth/verify-totp', { challengeToken: challenge.challengeToken, code: code(secret) });
    expect(ok.statusCode, ok.body).toBe(200);
    const session = ok.json().data;
    expect(session.refreshToken).toMatch(/^svcr_/);
    expect((await t.call({ method: 'GET', url: '/api/v1/auth/me', as: session.token })).json().data.amr).toEqual([
      'pwd',
      'totp',
    ]);
    tick();
    const again = await post('/api/v1/auth/verify-totp', {
      challengeToken: challenge.challengeToken,
      code: code(secret),
    });
    expect(again.statusCode).toBe(401);
    expect(again.json().errors[0].message).toMatch(/already answered/);
  });

  it('refuses a code of a time step already used (replay)', async () => {
    const { secret } = await enrolled('replay@example.com');
    const used = code(secret);
    const c1 = (await login('replay@example.com')).json().data.challengeToken;
    expect((await post('/api/v1/auth/verify-totp', { challengeToken: c1, code: used })).statusCode).toBe(200);
    const c2 = (await login('replay@example.com')).json().data.challengeToken;
    const replay = await post('/api/v1/auth/verify-totp', { challengeToken: c2, code: used });
    expect(replay.statusCode).toBe(401);
    expect(replay.json().errors[0].message).toMatch(/already used/);
  });

  it('accepts each recovery code once', async () => {
    const { recoveryCodes } = await enrolled('recover@example.com');
    const c1 = (await login('recover@example.com')).json().data.challengeToken;
    expect(
      (await post('/api/v1/auth/verify-totp', { challengeToken: c1, recoveryCode: recoveryCodes[0] })).statusCode,
    ).toBe(200);
    const c2 = (await login('recover@example.com')).json().data.challengeToken;
    expect(
      (await post('/api/v1/auth/verify-totp', { challengeToken: c2, recoveryCode: recoveryCodes[0] })).statusCode,
    ).toBe(401);
    const lower = recoveryCodes[1]!.toLowerCase();
    expect((await post('/api/v1/auth/verify-totp', { challengeToken: c2, recoveryCode: lower })).statusCode).toBe(200);
    const token = (await login('recover@example.com')).json().data;
    expect(token.status).toBe('mfa_required');
  });

  it('limits verification attempts per user with 429', async () => {
    const u = await createTestApp({ env: { ENCRYPTION_KEY: KEY_A, SVC_TOTP_MAX_ATTEMPTS: '2' }, clock });
    try {
      await u.setup();
      const token = await createUser(u, 'limit@example.com', PASSWORD, { main: 'viewer' });
      const { secret } = (
        await u.call({ method: 'POST', url: '/api/v1/me/tfa/setup', payload: { password: PASSWORD }, as: token })
      ).json().data;
      tick();
      await u.call({ method: 'POST', url: '/api/v1/me/tfa/confirm', payload: { code: code(secret) }, as: token });
      const challengeToken = (
        await u.call({
          method: 'POST',
          url: '/api/v1/auth/login',
          payload: { email: 'limit@example.com', password: PASSWORD },
        })
      ).json().data.challengeToken;
      const attempt = () =>
        u.call({ method: 'POST', url: '/api/v1/auth/verify-totp', payload: { challengeToken, code: '000000' } });
      expect((await attempt()).statusCode).toBe(401);
      expect((await attempt()).statusCode).toBe(401);
      const limited = await attempt();
      expect(limited.statusCode).toBe(429);
      expect(limited.headers['retry-after']).toBeDefined();
    } finally {
      await u.close();
    }
  });
});

describe('recovery codes and removal', () => {
  it('regenerates recovery codes with password and code; the old ones die', async () => {
    const { secret, recoveryCodes, token } = await enrolled('regen@example.com');
    const res = await post('/api/v1/me/tfa/recovery-codes', { password: PASSWORD, code: code(secret) }, token);
    expect(res.statusCode, res.body).toBe(200);
    const fresh = res.json().data.recoveryCodes as string[];
    expect(fresh).toHaveLength(8);
    const c = (await login('regen@example.com')).json().data.challengeToken;
    expect(
      (await post('/api/v1/auth/verify-totp', { challengeToken: c, recoveryCode: recoveryCodes[0] })).statusCode,
    ).toBe(401);
    expect((await post('/api/v1/auth/verify-totp', { challengeToken: c, recoveryCode: fresh[0] })).statusCode).toBe(
      200,
    );
  });

  it('removes TOTP with password and code, bumps the token version and ends every session', async () => {
    const { secret, token } = await enrolled('off@example.com');
    const c = (await login('off@example.com')).json().data.challengeToken;
    const session = (await post('/api/v1/auth/verify-totp', { challengeToken: c, code: code(secret) })).json().data;
    tick();
    expect(
      (await t.call({ method: 'DELETE', url: '/api/v1/me/tfa', payload: { password: PASSWORD }, as: session.token }))
        .statusCode,
    ).toBe(400);
    const off = await t.call({
      method: 'DELETE',
      url: '/api/v1/me/tfa',
      payload: { password: PASSWORD, code: code(secret) },
      as: session.token,
    });
    expect(off.statusCode, off.body).toBe(200);
    for (const old of [token, session.token])
      expect((await t.call({ method: 'GET', url: '/api/v1/auth/me', as: old })).statusCode).toBe(401);
    expect((await post('/api/v1/auth/refresh', { refreshToken: session.refreshToken })).statusCode).toBe(401);
    const plain = await login('off@example.com');
    expect(plain.json().data.token).toEqual(expect.any(String));
  });
});

describe('a challenge that outlives the enrollment', () => {
  it('fails as a login (401), not as a missing key, once TOTP was removed meanwhile', async () => {
    const { secret, recoveryCodes, token } = await enrolled('gone@example.com');
    const challengeToken = (await login('gone@example.com')).json().data.challengeToken;
    const off = await t.call({
      method: 'DELETE',
      url: '/api/v1/me/tfa',
      payload: { password: PASSWORD, recoveryCode: recoveryCodes[0] },
      as: token,
    });
    expect(off.statusCode, off.body).toBe(200);
    tick();
    const late = await post('/api/v1/auth/verify-totp', { challengeToken, code: code(secret) });
    expect(late.statusCode).toBe(401);
    expect(late.json().errors[0].code).toBe('UNAUTHENTICATED');
  });

  it('replaces the seed when setup runs again before confirmation', async () => {
    const token = await createUser(t, 'twice@example.com', PASSWORD, { main: 'viewer' });
    const first = (await post('/api/v1/me/tfa/setup', { password: PASSWORD }, token)).json().data.secret;
    const second = (await post('/api/v1/me/tfa/setup', { password: PASSWORD }, token)).json().data.secret;
    expect(second).not.toBe(first);
    tick();
    expect((await post('/api/v1/me/tfa/confirm', { code: code(first) }, token)).statusCode).toBe(400);
    expect((await post('/api/v1/me/tfa/confirm', { code: code(second) }, token)).statusCode).toBe(200);
  });
});

describe('seed key missing', () => {
  it('fails closed with 409 TFA_KEY_UNAVAILABLE for codes, while recovery codes still work', async () => {
    const { secret, recoveryCodes } = await enrolled('lost@example.com');
    // A rotation to v1 that dropped v0 too early: the subjects' keys were rewrapped under v1, the seed was not.
    await t.restart({ ENCRYPTION_KEY: KEY_A, ENCRYPTION_KEY_V1: KEY_B, ENCRYPTION_ACTIVE_KEY_ID: 'v1' });
    await t.restart({ ENCRYPTION_KEY_V1: KEY_B });
    try {
      const c = (await login('lost@example.com')).json().data.challengeToken;
      const withCode = await post('/api/v1/auth/verify-totp', { challengeToken: c, code: code(secret) });
      expect(withCode.statusCode).toBe(409);
      expect(withCode.json().errors[0].code).toBe('TFA_KEY_UNAVAILABLE');
      const session = (
        await post('/api/v1/auth/verify-totp', { challengeToken: c, recoveryCode: recoveryCodes[0] })
      ).json().data;
      expect(session.token).toEqual(expect.any(String));
      const regen = await post(
        '/api/v1/me/tfa/recovery-codes',
        { password: PASSWORD, code: code(secret) },
        session.token,
      );
      expect(regen.statusCode).toBe(409);
      const offWithCode = await t.call({
        method: 'DELETE',
        url: '/api/v1/me/tfa',
        payload: { password: PASSWORD, code: code(secret) },
        as: session.token,
      });
      expect(offWithCode.statusCode).toBe(409);
      const off = await t.call({
        method: 'DELETE',
        url: '/api/v1/me/tfa',
        payload: { password: PASSWORD, recoveryCode: recoveryCodes[1] },
        as: session.token,
      });
      expect(off.statusCode, off.body).toBe(200);
    } finally {
      await t.restart({ ENCRYPTION_KEY: KEY_A, ENCRYPTION_KEY_V1: KEY_B, ENCRYPTION_ACTIVE_KEY_ID: 'v0' });
    }
  });
});

describe('policy step-up', () => {
  it('asks a session without the second factor for it, and MFA_REQUIRED when not enrolled', async () => {
    const admin = (
      await post('/api/v1/auth/login', { email: 'admin@example.com', password: 'Correct-horse-42!' })
    ).json().data.token as string;
    const site = (method: 'GET' | 'POST', url: string, payload?: object, as = admin) =>
      t.call({ method, url, payload, as, site: 'main' });
    await site('POST', '/api/v1/collections', { name: 'vault' });
    const role = (await site('POST', '/api/v1/roles', { name: 'Vault keeper' })).json().data.id;
    const policy = (await site('POST', '/api/v1/policies', { name: 'Vault', requireMfa: true })).json().data.id;
    await site('POST', `/api/v1/policies/${policy}/permissions`, { collection: 'vault', action: 'read' });
    await site('POST', `/api/v1/policies/${policy}/attach`, { role });
    const plain = await createUser(t, 'keeper@example.com', PASSWORD, { main: role });
    const notEnrolled = await site('GET', '/api/v1/items/vault', undefined, plain);
    expect(notEnrolled.statusCode).toBe(401);
    expect(notEnrolled.json().errors[0].code).toBe('MFA_REQUIRED');
    const { secret, token } = await enrolled('keeper2@example.com');
    // keeper2 gets the vault role through a direct grant of the policy.
    const keeper2 = (await t.call({ method: 'GET', url: '/api/v1/auth/me', as: token })).json().data.id;
    await site('POST', `/api/v1/policies/${policy}/attach`, { user: keeper2 });
    const challenged = await site('GET', '/api/v1/items/vault', undefined, token);
    expect(challenged.statusCode).toBe(401);
    const { challengeToken } = challenged.json().errors[0].extensions;
    const session = (await post('/api/v1/auth/verify-totp', { challengeToken, code: code(secret) })).json().data;
    expect((await site('GET', '/api/v1/items/vault', undefined, session.token)).statusCode).toBe(200);
  });
});
