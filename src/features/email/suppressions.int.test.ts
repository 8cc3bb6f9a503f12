import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/setup/app.ts';
import { createUser } from '../../../test/setup/users.ts';
import { listOutbox } from '../../platform/mail/outbox.ts';
import { isSuppressed, queueMarketingMail, shredSuppressedAddress } from './index.ts';

let t: TestApp;
let admin: string;
let siteAdmin: string;
let otherAdmin: string;
type Method = 'GET' | 'POST' | 'DELETE';
const BASE = '/api/v1/email/suppressions';

beforeAll(async () => {
  t = await createTestApp();
  admin = await t.setup();
  await t.call({ method: 'POST', url: '/api/v1/sites', as: admin, payload: { id: 'other', name: 'Other' } });
  siteAdmin = await createUser(t, 'sa@email.test', 'Site-admin-pass-1618!', { main: 'site_admin' });
  otherAdmin = await createUser(t, 'oa@email.test', 'Other-admin-pass-1618!', { other: 'admin' });
});
afterAll(() => t.close());

const call = (method: Method, url: string, payload?: object, opts: { as?: string | null; site?: string } = {}) =>
  t.call({
    method,
    url,
    ...(opts.as === null ? {} : { as: opts.as ?? admin }),
    site: opts.site ?? 'main',
    ...(payload ? { payload } : {}),
  });
const list = async (site = 'main', as = admin) => {
  const res = await call('GET', `${BASE}?limit=200`, undefined, { site, as });
  expect(res.statusCode, res.body).toBe(200);
  return res.json() as { data: { email: string | null; emailHash: string; source: string }[]; meta: { total: number } };
};
const audit = async (type: string, site = 'main') => {
  const res = await t.call({ method: 'GET', url: `/api/v1/audit?type=${type}`, as: admin, site });
  expect(res.statusCode, res.body).toBe(200);
  return res.json().data as { type: string; stream: string; actor: { id: string } }[];
};
const path = (email: string) => `${BASE}/${encodeURIComponent(email)}`;

describe('POST /api/v1/email/suppressions', () => {
  it('suppresses an address (201) and records email_suppressed in the audit log', async () => {
    const res = await call('POST', BASE, { email: 'ada@example.com', reason: 'bounced twice' });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json().data).toEqual({
      email: 'ada@example.com',
      emailHash: expect.stringMatching(/^[0-9a-f]{64}$/),
      reason: 'bounced twice',
      source: 'admin',
      suppressedAt: expect.any(String),
    });
    const events = await audit('email_suppressed');
    expect(events).toHaveLength(1);
    expect(events[0]!.stream).toBe(`main/email-suppression/${res.json().data.emailHash}`);
    expect(await isSuppressed(t.deps, 'main', 'ada@example.com')).toBe(true);
    const { data, meta } = await list();
    expect(meta.total).toBe(1);
    expect(data[0]).toMatchObject({ email: 'ada@example.com', source: 'admin' });
  });

  it('answers 200 with the record and records nothing for an address already suppressed, in any case or form', async () => {
    for (const email of ['Ada@Example.COM', '  ADA@EXAMPLE.COM ', 'ada@example.com']) {
      const res = await call('POST', BASE, { email });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json().data).toMatchObject({ email: 'ada@example.com', reason: 'bounced twice', source: 'admin' });
    }
    const nfc = 'jos\u00e9@exemple.fr';
    expect((await call('POST', BASE, { email: nfc })).statusCode).toBe(201);
    const again = await call('POST', BASE, { email: 'JOSE\u0301@exemple.fr' });
    expect(again.statusCode, again.body).toBe(200);
    expect(again.json().data.email).toBe(nfc);
    expect(await audit('email_suppressed')).toHaveLength(2);
    expect((await list()).meta.total).toBe(2);
  });

  it.each([
    [{ email: 'not-an-address' }, ['body', 'email']],
    [{ email: 'a@b@c' }, ['body', 'email']],
    [{ email: 'ada\r\nBcc: x@example.com' }, ['body', 'email']],
    [{ email: `${'a'.repeat(250)}@example.com` }, ['body', 'email']],
    [{ email: 'ada@example.com', reason: 'x'.repeat(501) }, ['body', 'reason']],
    [{}, ['body', 'email']],
  ])('refuses %j with 400 VALIDATION_FAILED at %j', async (payload, at) => {
    const res = await call('POST', BASE, payload);
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json().errors[0]).toMatchObject({ code: 'VALIDATION_FAILED', path: at });
  });
});

it('refuses __proto__ and constructor keys without touching any prototype', async () => {
  for (const raw of [
    `{"email":"proto@example.com","__proto__":{"polluted":true}}`,
    `{"email":"proto@example.com","constructor":{"prototype":{"polluted":true}}}`,
  ]) {
    const res = await t.call({
      method: 'POST',
      url: BASE,
      as: admin,
      site: 'main',
      headers: { 'content-type': 'application/json' },
      payload: raw,
    });
    expect(res.statusCode, res.body).toBe(400);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  }
  expect(await isSuppressed(t.deps, 'main', 'proto@example.com')).toBe(false);
});

describe('DELETE /api/v1/email/suppressions/:email', () => {
  it('removes the address (204), whatever its case, and records email_unsuppressed', async () => {
    expect((await call('POST', BASE, { email: 'grace@example.com' })).statusCode).toBe(201);
    const res = await call('DELETE', path('Grace@EXAMPLE.com'));
    expect(res.statusCode, res.body).toBe(204);
    expect(await isSuppressed(t.deps, 'main', 'grace@example.com')).toBe(false);
    expect(await audit('email_unsuppressed')).toHaveLength(1);
    expect((await list()).data.map((r) => r.email)).not.toContain('grace@example.com');
  });

  it('answers 404 NOT_FOUND for an address that is not suppressed, and records nothing', async () => {
    const res = await call('DELETE', path('grace@example.com'));
    expect(res.statusCode, res.body).toBe(404);
    expect(res.json().errors[0]).toMatchObject({ code: 'NOT_FOUND', path: ['email'] });
    expect(await audit('email_unsuppressed')).toHaveLength(1);
  });

  it('refuses a malformed address with 400 at the path parameter', async () => {
    const res = await call('DELETE', path('no-at-sign'));
    expect(res.statusCode).toBe(400);
    expect(res.json().errors[0]).toMatchObject({ code: 'VALIDATION_FAILED', path: ['params', 'email'] });
  });
});

describe('who may manage suppressions', () => {
  it('refuses a site_admin with 403 and an anonymous caller with 401 on every route', async () => {
    for (const [method, url, payload] of [
      ['GET', BASE, undefined],
      ['POST', BASE, { email: 'x@example.com' }],
      ['DELETE', path('ada@example.com'), undefined],
    ] as const) {
      expect((await call(method, url, payload, { as: siteAdmin })).statusCode).toBe(403);
      const anonymous = await call(method, url, payload, { as: null });
      expect(anonymous.statusCode).toBe(401);
      expect(anonymous.json().errors[0].code).toBe('UNAUTHENTICATED');
    }
    expect(await isSuppressed(t.deps, 'main', 'x@example.com')).toBe(false);
    expect(await isSuppressed(t.deps, 'main', 'ada@example.com')).toBe(true);
  });

  it("keeps each site's list to itself: another site's admin can neither read nor delete this site's", async () => {
    expect((await call('GET', BASE, undefined, { as: otherAdmin })).statusCode).toBe(403);
    expect((await call('DELETE', path('ada@example.com'), undefined, { as: otherAdmin })).statusCode).toBe(403);
    // On their own site the address is not suppressed: 404, and this site's suppression stands.
    const own = await call('DELETE', path('ada@example.com'), undefined, { as: otherAdmin, site: 'other' });
    expect(own.statusCode).toBe(404);
    expect((await list('other', otherAdmin)).meta.total).toBe(0);
    expect((await call('POST', BASE, { email: 'ada@example.com' }, { as: otherAdmin, site: 'other' })).statusCode).toBe(
      201,
    );
    expect((await list('other', otherAdmin)).data).toHaveLength(1);
    expect(await audit('email_suppressed', 'other')).toHaveLength(1);
    // ada, josé, and grace (since removed) on this site.
    expect(await audit('email_suppressed', 'main')).toHaveLength(3);
    expect(await isSuppressed(t.deps, 'main', 'ada@example.com')).toBe(true);
  });

  it('pages the list with limit and offset and counts it in meta.total', async () => {
    const res = await call('GET', `${BASE}?limit=1&offset=1`);
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toHaveLength(1);
    expect(res.json().meta).toEqual({ total: 2, limit: 1, offset: 1 });
    expect((await call('GET', `${BASE}?limit=0`)).statusCode).toBe(400);
    expect((await call('GET', `${BASE}?bogus=1`)).statusCode).toBe(400);
  });
});

describe('erasure of a suppressed address', () => {
  it('leaves the hash and the suppression, and shows email: null', async () => {
    expect((await call('POST', BASE, { email: 'erase.me@example.com' })).statusCode).toBe(201);
    await shredSuppressedAddress(t.deps, 'main', 'Erase.Me@example.com');
    const row = (await list()).data.find((r) => r.email === null);
    expect(row).toMatchObject({ email: null, emailHash: expect.stringMatching(/^[0-9a-f]{64}$/), source: 'admin' });
    expect(await isSuppressed(t.deps, 'main', 'erase.me@example.com')).toBe(true);
    // The other site's copy of an address is sealed under a key of its own.
    expect((await list('other', otherAdmin)).data[0]!.email).toBe('ada@example.com');
    // Suppressing it again is idempotent and reveals nothing.
    const again = await call('POST', BASE, { email: 'erase.me@example.com' });
    expect(again.statusCode).toBe(200);
    expect(again.json().data.email).toBeNull();
  });
});

describe('marketing mail', () => {
  it('skips a suppressed address and writes nothing; queues others with the one-click headers', async () => {
    const before = (await listOutbox(t.deps.db, { limit: 500 })).length;
    const mail = { siteId: 'main', subject: 'News', body: 'Hello' };
    expect(await queueMarketingMail(t.deps, { ...mail, to: 'ADA@example.com' })).toEqual({
      queued: false,
      reason: 'suppressed',
    });
    expect((await listOutbox(t.deps.db, { limit: 500 })).length).toBe(before);
    expect(await queueMarketingMail(t.deps, { ...mail, to: 'linus@example.com' })).toEqual({ queued: true });
    const [sent] = await listOutbox(t.deps.db, { to: 'linus@example.com', limit: 1 });
    expect(sent).toMatchObject({ kind: 'marketing', to: 'linus@example.com' });
    expect(sent!.headers).toEqual([
      {
        key: 'List-Unsubscribe',
        value: expect.stringMatching(/^<http:\/\/localhost:1989\/api\/v1\/email\/unsubscribe\?token=[\w.-]+>$/),
      },
      { key: 'List-Unsubscribe-Post', value: 'List-Unsubscribe=One-Click' },
    ]);
    await expect(queueMarketingMail(t.deps, { ...mail, to: 'bad\naddress@x' })).rejects.toMatchObject({
      code: 'VALIDATION_FAILED',
    });
  });

  it('leaves transactional mail alone: a suppressed address still gets its password reset', async () => {
    await call('POST', BASE, { email: 'admin@example.com' });
    const res = await t.call({
      method: 'POST',
      url: '/api/v1/auth/forgot-password',
      payload: { email: 'admin@example.com' },
    });
    expect(res.statusCode).toBe(202);
    await t.deps.afterAnswer.settled(); // the mail is written after the answer
    const [reset] = await listOutbox(t.deps.db, { to: 'admin@example.com', limit: 1 });
    expect(reset).toMatchObject({ kind: 'reset-password', headers: [] });
  });
});
