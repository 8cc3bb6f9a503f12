import { createSecretKey } from 'node:crypto';
import { generateKeyPair, SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN as TEST_ADMIN, createTestApp, type TestApp } from '../../../test/setup/app.ts';
import { isSuppressed, unsubscribeToken, unsubscribeUrl } from './index.ts';

const SECRET = 'test-secret-test-secret-test-secret-123';
const URL_ = '/api/v1/email/unsubscribe';
let t: TestApp;
let admin: string;

beforeAll(async () => {
  t = await createTestApp();
  admin = await t.setup();
  const name = `<script>alert("x")</script> & Co`;
  await t.call({ method: 'POST', url: '/api/v1/sites', as: admin, payload: { id: 'shop', name } });
});
afterAll(() => t.close());

const b64 = (o: object) => Buffer.from(JSON.stringify(o)).toString('base64url');
const audit = async (type: string, site = 'main') => {
  const res = await t.call({ method: 'GET', url: `/api/v1/audit?type=${type}`, as: admin, site });
  expect(res.statusCode, res.body).toBe(200);
  return res.json().data as { type: string; actor: { type: string; id: string } }[];
};
const suppressed = async (site: string) => {
  const res = await t.call({ method: 'GET', url: '/api/v1/email/suppressions', as: admin, site });
  expect(res.statusCode, res.body).toBe(200);
  return res.json().data as { email: string; source: string }[];
};
const post = (token: string, headers: Record<string, string> = {}) =>
  t.call({ method: 'POST', url: `${URL_}?token=${encodeURIComponent(token)}`, headers });
const expectPageHeaders = (headers: Record<string, unknown>) =>
  expect(headers).toMatchObject({
    'content-type': 'text/html; charset=utf-8',
    'content-security-policy': "default-src 'none'; form-action 'self'; style-src 'unsafe-inline'",
    'x-frame-options': 'DENY',
    'cache-control': 'no-store',
    'referrer-policy': 'no-referrer',
  });

describe('the unsubscribe token', () => {
  it('is an HS256 JWT carrying siteId and email, without expiry, the same for the same site and address', async () => {
    const token = await unsubscribeToken(t.deps, 'main', 'ada@example.com');
    const [header, payload] = token
      .split('.')
      .slice(0, 2)
      .map((p) => JSON.parse(Buffer.from(p, 'base64url').toString()));
    expect(header).toEqual({ alg: 'HS256', typ: 'JWT' });
    expect(payload).toEqual({ siteId: 'main', email: 'ada@example.com', aud: 'email-unsubscribe' });
    expect(await unsubscribeToken(t.deps, 'main', 'ada@example.com')).toBe(token);
    expect(await unsubscribeUrl(t.deps, 'main', 'ada@example.com')).toBe(
      `http://localhost:1989/api/v1/email/unsubscribe?token=${token}`,
    );
  });
});

describe('POST /api/v1/email/unsubscribe', () => {
  it('suppresses the address (200, no login, no cookie, no redirect) and records email_unsubscribed', async () => {
    const res = await post(await unsubscribeToken(t.deps, 'main', 'Ada@Example.com'), {
      'content-type': 'application/x-www-form-urlencoded',
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({ data: { unsubscribed: true } });
    expect(res.headers['set-cookie']).toBeUndefined();
    expect(res.headers.location).toBeUndefined();
    expect(await isSuppressed(t.deps, 'main', 'ada@example.com')).toBe(true);
    const events = await audit('email_unsubscribed');
    expect(events).toHaveLength(1);
    expect(events[0]!.actor).toEqual({ type: 'system', id: 'anonymous' });
    expect(await suppressed('main')).toEqual([
      expect.objectContaining({ email: 'ada@example.com', source: 'unsubscribe' }),
    ]);
  });

  it('answers the same again and records nothing (idempotent)', async () => {
    const res = await post(await unsubscribeToken(t.deps, 'main', 'ada@example.com'));
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ data: { unsubscribed: true } });
    expect(await audit('email_unsubscribed')).toHaveLength(1);
  });

  it('takes the RFC 8058 form body with the token in it, and a multipart body with the token in the query', async () => {
    const token = await unsubscribeToken(t.deps, 'main', 'form@example.com');
    const res = await t.call({
      method: 'POST',
      url: URL_,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: `List-Unsubscribe=One-Click&token=${encodeURIComponent(token)}`,
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(await isSuppressed(t.deps, 'main', 'form@example.com')).toBe(true);
    const boundary = 'xyz';
    const multipart = await t.call({
      method: 'POST',
      url: `${URL_}?token=${await unsubscribeToken(t.deps, 'main', 'multi@example.com')}`,
      headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
      payload: `--${boundary}\r\nContent-Disposition: form-data; name="List-Unsubscribe"\r\n\r\nOne-Click\r\n--${boundary}--\r\n`,
    });
    expect(multipart.statusCode, multipart.body).toBe(200);
    expect(await isSuppressed(t.deps, 'main', 'multi@example.com')).toBe(true);
  });

  it('acts on the site of the token, whatever X-Svc-Site says; the other site is unaffected', async () => {
    const token = await unsubscribeToken(t.deps, 'shop', 'zoe@example.com');
    const res = await t.call({ method: 'POST', url: `${URL_}?token=${token}`, site: 'main' });
    expect(res.statusCode, res.body).toBe(200);
    expect(await isSuppressed(t.deps, 'shop', 'zoe@example.com')).toBe(true);
    expect(await isSuppressed(t.deps, 'main', 'zoe@example.com')).toBe(false);
    expect((await suppressed('main')).map((r) => r.email)).not.toContain('zoe@example.com');
    expect(await audit('email_unsubscribed', 'shop')).toHaveLength(1);
  });

  it('refuses forged and foreign tokens with 401 and changes nothing', async () => {
    const claims = { siteId: 'main', email: 'victim@example.com' };
    const key = (s: string) => createSecretKey(Buffer.from(s, 'utf8'));
    const sign = (alg: string, secret: string) =>
      new SignJWT(claims).setProtectedHeader({ alg, typ: 'JWT' }).setAudience('email-unsubscribe').sign(key(secret));
    const genuine = await unsubscribeToken(t.deps, 'main', 'victim@example.com');
    const [, body] = genuine.split('.');
    const forged = {
      'another key': await sign('HS256', 'another-secret-another-secret-another-1'),
      'alg none': `${b64({ alg: 'none', typ: 'JWT' })}.${body}.`,
      'alg none with the genuine signature': `${b64({ alg: 'none', typ: 'JWT' })}.${body}.${genuine.split('.')[2]}`,
      HS512: await sign('HS512', SECRET),
      'an access token': admin,
      'a changed payload': `${genuine.split('.')[0]}.${b64({ ...claims, email: 'other@example.com' })}.${genuine.split('.')[2]}`,
      garbage: 'not.a.token',
      'too long': 'a'.repeat(3000),
    };
    for (const [what, token] of Object.entries(forged)) {
      const res = await post(token);
      expect(res.statusCode, what).toBe(401);
      expect(res.json().errors[0], what).toMatchObject({
        code: 'UNAUTHENTICATED',
        path: ['token'],
        extensions: { reason: 'invalid_token' },
      });
    }
    expect(await isSuppressed(t.deps, 'main', 'victim@example.com')).toBe(false);
    expect(await isSuppressed(t.deps, 'main', 'other@example.com')).toBe(false);
  });

  it('refuses a genuine token of a site that does not exist with 401 unknown_site', async () => {
    const res = await post(await unsubscribeToken(t.deps, 'gone-site', 'ada@example.com'));
    expect(res.statusCode).toBe(401);
    expect(res.json().errors[0]).toMatchObject({ code: 'UNAUTHENTICATED', extensions: { reason: 'unknown_site' } });
  });

  it('answers a suppressed and an unsuppressed address alike, and a missing token with 400', async () => {
    const a = await post(await unsubscribeToken(t.deps, 'main', 'ada@example.com'));
    const b = await post(await unsubscribeToken(t.deps, 'main', 'new@example.com'));
    expect([a.statusCode, a.body]).toEqual([b.statusCode, b.body]);
    const missing = await t.call({ method: 'POST', url: URL_ });
    expect(missing.statusCode).toBe(400);
    expect(missing.json().errors[0]).toMatchObject({ code: 'VALIDATION_FAILED', path: ['query', 'token'] });
    const two = await t.call({
      method: 'POST',
      url: `${URL_}?token=${await unsubscribeToken(t.deps, 'main', 'a@example.com')}`,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: `token=${await unsubscribeToken(t.deps, 'main', 'b@example.com')}`,
    });
    expect(two.statusCode).toBe(400);
    expect(await isSuppressed(t.deps, 'main', 'a@example.com')).toBe(false);
  });
});

describe('GET /api/v1/email/unsubscribe', () => {
  it('shows a one-button form that posts the one-click request, and changes nothing itself', async () => {
    const email = '<img src=x onerror=alert(1)>@example.com';
    const token = await unsubscribeToken(t.deps, 'shop', email);
    const res = await t.call({ method: 'GET', url: `${URL_}?token=${token}` });
    expect(res.statusCode, res.body).toBe(200);
    expectPageHeaders(res.headers);
    expect(res.body).toContain('<form method="post" action="/api/v1/email/unsubscribe?token=');
    expect(res.body).toContain('name="List-Unsubscribe" value="One-Click"');
    expect(res.body).toContain('&lt;img src=x onerror=alert(1)&gt;@example.com');
    expect(res.body).toContain('&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; Co');
    expect(res.body).not.toMatch(/<script|<img/);
    expect(await isSuppressed(t.deps, 'shop', email)).toBe(false);
    // The form's POST answers a page, and suppresses.
    const done = await t.call({
      method: 'POST',
      url: `${URL_}?token=${token}`,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'List-Unsubscribe=One-Click&page=1',
    });
    expect(done.statusCode, done.body).toBe(200);
    expectPageHeaders(done.headers);
    expect(done.body).toContain('<h1>Unsubscribed</h1>');
    expect(await isSuppressed(t.deps, 'shop', email)).toBe(true);
  });

  it('answers a bad or missing token with an HTML page and the right status', async () => {
    const bad = await t.call({ method: 'GET', url: `${URL_}?token=not.a.token` });
    expect(bad.statusCode).toBe(401);
    expectPageHeaders(bad.headers);
    expect(bad.body).toContain('UNAUTHENTICATED');
    const missing = await t.call({ method: 'GET', url: URL_ });
    expect(missing.statusCode).toBe(400);
    expectPageHeaders(missing.headers);
    const odd = await t.call({ method: 'GET', url: `${URL_}?token=${'a'.repeat(5000)}` });
    expect(odd.statusCode).toBe(400);
    expectPageHeaders(odd.headers);
    const gone = await t.call({
      method: 'GET',
      url: `${URL_}?token=${await unsubscribeToken(t.deps, 'gone-site', 'a@example.com')}`,
    });
    expect(gone.statusCode).toBe(401);
    expect(gone.body).toContain('does not exist');
  });
});

describe('the tokens the three unsubscribe routes take (spec: HS256 { siteId, email } under JWT_SECRET)', () => {
  const key = createSecretKey(Buffer.from(SECRET, 'utf8'));
  const claims = (email: string) => ({ siteId: 'main', email });
  /** A mailer of another service, making tokens as the spec says. */
  const accepted: Record<string, (email: string) => Promise<string>> = {
    "the spec's token (no audience, no expiry)": (email) =>
      new SignJWT(claims(email)).setProtectedHeader({ alg: 'HS256', typ: 'JWT' }).sign(key),
    'the same without a typ header, with an issue time': (email) =>
      new SignJWT(claims(email)).setProtectedHeader({ alg: 'HS256' }).setIssuedAt().sign(key),
    "the service's own (audience email-unsubscribe)": (email) => unsubscribeToken(t.deps, 'main', email),
  };
  const sign = (email: string, alg: string, secret = key) =>
    new SignJWT(claims(email)).setProtectedHeader({ alg, typ: 'JWT' }).sign(secret);
  const refused: Record<string, (email: string) => Promise<string>> = {
    'another audience': (email) =>
      new SignJWT(claims(email)).setProtectedHeader({ alg: 'HS256' }).setAudience('newsletter').sign(key),
    'the access audience': (email) =>
      new SignJWT(claims(email)).setProtectedHeader({ alg: 'HS256' }).setAudience('svc-access').sign(key),
    'two audiences, one of them ours': (email) =>
      new SignJWT(claims(email))
        .setProtectedHeader({ alg: 'HS256' })
        .setAudience(['email-unsubscribe', 'svc-access'])
        .sign(key),
    'a sub': (email) => new SignJWT(claims(email)).setProtectedHeader({ alg: 'HS256' }).setSubject('u1').sign(key),
    'an access token of the service': async () => admin,
    'a refresh token of the service': async () =>
      (await t.call({ method: 'POST', url: '/api/v1/auth/login', payload: TEST_ADMIN })).json().data.refreshToken,
    'an MFA challenge token carrying the claims': (email) =>
      t.deps.tokens.issuePurpose('mfa-challenge', 'u1', claims(email), 300),
    'a verify-email token carrying the claims': (email) =>
      t.deps.tokens.issuePurpose('verify-email', 'u1', claims(email), 300),
    'an access token type (typ at+jwt)': (email) =>
      new SignJWT(claims(email)).setProtectedHeader({ alg: 'HS256', typ: 'at+jwt' }).sign(key),
    HS384: (email) => sign(email, 'HS384'),
    HS512: (email) => sign(email, 'HS512'),
    RS256: async (email) => sign(email, 'RS256', (await generateKeyPair('RS256')).privateKey as never),
    'alg none': async (email) => `${b64({ alg: 'none', typ: 'JWT' })}.${b64(claims(email))}.`,
    'another key': (email) => sign(email, 'HS256', createSecretKey(Buffer.from('x'.repeat(40), 'utf8'))),
  };

  const routes = {
    'the one-click POST': (token: string) => post(token),
    'the form-body POST': (token: string) =>
      t.call({
        method: 'POST',
        url: URL_,
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: `List-Unsubscribe=One-Click&token=${encodeURIComponent(token)}`,
      }),
    'the GET page': (token: string) => t.call({ method: 'GET', url: `${URL_}?token=${encodeURIComponent(token)}` }),
  };

  let n = 0;
  for (const [route, send] of Object.entries(routes)) {
    describe(route, () => {
      it.each(Object.keys(accepted))('accepts %s', async (kind) => {
        const email = `spec-${(n += 1)}@example.com`;
        const res = await send(await accepted[kind]!(email));
        expect(res.statusCode, res.body).toBe(200);
        if (route !== 'the GET page') expect(await isSuppressed(t.deps, 'main', email)).toBe(true);
        else expect(res.body).toContain(email);
      });
      it.each(Object.keys(refused))('refuses %s with 401 and suppresses nothing', async (kind) => {
        const email = `refused-${(n += 1)}@example.com`;
        const res = await send(await refused[kind]!(email));
        expect(res.statusCode, res.body).toBe(401);
        expect(res.body).toContain('UNAUTHENTICATED');
        expect(await isSuppressed(t.deps, 'main', email)).toBe(false);
      });
    });
  }
});
