import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/setup/app.ts';
import { createUser } from '../../../test/setup/users.ts';
import { queueMarketingMail } from '../email/index.ts';
import { WEBHOOK_DISPATCHER } from '../webhooks/index.ts';

let t: TestApp;
let admin: string;
let ada: string;
let bob: string;
let otherAdmin: string;
const PASSWORD = 'Consent-pass-1618!x';
type Method = 'GET' | 'PUT' | 'POST' | 'PATCH';

beforeAll(async () => {
  t = await createTestApp();
  admin = await t.setup();
  await t.call({ method: 'POST', url: '/api/v1/sites', as: admin, payload: { id: 'other', name: 'Other' } });
  ada = await createUser(t, 'ada@consent.test', PASSWORD, { main: 'editor', other: 'editor' });
  bob = await createUser(t, 'bob@consent.test', PASSWORD, { main: 'editor' });
  otherAdmin = await createUser(t, 'boss@consent.test', PASSWORD, { other: 'site_admin' });
});
afterAll(() => t.close());

const call = (method: Method, url: string, as: string, payload?: unknown, site = 'main') =>
  t.call({ method, url, as, site, ...(payload === undefined ? {} : { payload: payload as object }) });
const ok = async (method: Method, url: string, as: string, payload?: unknown, site = 'main') => {
  const res = await call(method, url, as, payload, site);
  expect(res.statusCode, res.body).toBeLessThan(300);
  return res.json();
};
const tick = () => new Promise((r) => setTimeout(r, 15));
const userIdOf = async (token: string) => (await ok('GET', '/api/v1/auth/me', token)).data.id as string;

describe('consents', () => {
  it('lists the five types, never chosen, for a person who was never asked', async () => {
    const res = await ok('GET', '/api/v1/me/consents', ada);
    expect(res.data.map((c: { consentType: string }) => c.consentType)).toEqual([
      'marketing',
      'analytics',
      'personalization',
      'functional',
      'sale_share',
    ]);
    expect(res.data[0]).toEqual({
      consentType: 'marketing',
      granted: false,
      grantedAt: null,
      withdrawnAt: null,
      source: null,
      version: null,
      updatedAt: null,
    });
  });

  it('grants and withdraws, each an audit event, and answers what stood at any time', async () => {
    const before = new Date().toISOString();
    await tick();
    const granted = await ok('PUT', '/api/v1/me/consents/marketing', ada, {
      granted: true,
      source: 'banner',
      version: 'v1',
    });
    expect(granted.data).toMatchObject({
      consentType: 'marketing',
      granted: true,
      source: 'banner',
      version: 'v1',
      withdrawnAt: null,
    });
    expect(granted.data.grantedAt).toEqual(granted.data.updatedAt);
    // The same choice again changes nothing and records nothing.
    await ok('PUT', '/api/v1/me/consents/marketing', ada, { granted: true, source: 'banner', version: 'v1' });
    await tick();
    const between = new Date().toISOString();
    await tick();
    const withdrawn = await ok('PUT', '/api/v1/me/consents/marketing', ada, {
      granted: false,
      source: 'settings',
      version: 'v1',
    });
    expect(withdrawn.data).toMatchObject({ granted: false, grantedAt: granted.data.grantedAt, source: 'settings' });
    expect(withdrawn.data.withdrawnAt).toEqual(expect.any(String));

    const at = async (time: string) =>
      (await ok('GET', `/api/v1/me/consents/marketing?asOf=${encodeURIComponent(time)}`, ada)).data.granted;
    expect(await at(before)).toBe(false);
    expect(await at(between)).toBe(true);
    expect(await at(new Date().toISOString())).toBe(false);
    const all = await ok('GET', `/api/v1/me/consents?asOf=${encodeURIComponent(between)}`, ada);
    expect(all.data.find((c: { consentType: string }) => c.consentType === 'marketing').granted).toBe(true);

    const history = await ok('GET', '/api/v1/me/consents/marketing/history', ada);
    const adaId = await userIdOf(ada);
    expect(history.data.map((h: { event: string }) => h.event)).toEqual(['consent_granted', 'consent_withdrawn']);
    expect(history.data[0]).toMatchObject({ granted: true, source: 'banner', actor: { type: 'user', id: adaId } });
    expect(history.data[0].correlationId).toEqual(expect.any(String));
    const audit = await ok('GET', '/api/v1/audit?type=consent_granted', admin);
    expect(audit.data.some((e: { data: { userId: string } }) => e.data.userId === adaId)).toBe(true);
    expect((await ok('GET', '/api/v1/audit?type=consent_withdrawn', admin)).data.length).toBeGreaterThan(0);
  });

  it('records a new grant for a new text version', async () => {
    await ok('PUT', '/api/v1/me/consents/analytics', ada, { granted: true, source: 'banner', version: 'v1' });
    await ok('PUT', '/api/v1/me/consents/analytics', ada, { granted: true, source: 'banner', version: 'v2' });
    const history = await ok('GET', '/api/v1/me/consents/analytics/history', ada);
    expect(history.data.map((h: { version: string }) => h.version)).toEqual(['v1', 'v2']);
  });

  it('pages the history with limit, offset or page, and meta', async () => {
    // Alternate grant and withdrawal: each choice is one event, 7 in all.
    for (let i = 0; i < 7; i++)
      await ok('PUT', '/api/v1/me/consents/sale_share', bob, { granted: i % 2 === 0, source: `s${i}`, version: 'v1' });
    const url = '/api/v1/me/consents/sale_share/history';
    const first = await ok('GET', `${url}?limit=3`, bob);
    expect(first.meta).toEqual({ total: 7, limit: 3, offset: 0 });
    expect(first.data.map((h: { source: string }) => h.source)).toEqual(['s0', 's1', 's2']);
    const second = await ok('GET', `${url}?limit=3&page=2`, bob);
    expect(second.meta).toEqual({ total: 7, limit: 3, offset: 3 });
    expect(second.data.map((h: { source: string }) => h.source)).toEqual(['s3', 's4', 's5']);
    const last = await ok('GET', `${url}?limit=3&offset=6`, bob);
    expect(last.data.map((h: { source: string }) => h.source)).toEqual(['s6']);
    expect((await ok('GET', `${url}?offset=20`, bob)).data).toEqual([]);
    expect((await ok('GET', url, bob)).meta).toEqual({ total: 7, limit: 25, offset: 0 });
    for (const q of ['limit=0', 'limit=201', 'page=0', 'offset=-1', 'limit=x', 'sort=at']) {
      const bad = await call('GET', `${url}?${q}`, bob);
      expect(bad.statusCode, q).toBe(400);
      expect(bad.json().errors[0].code).toBe('VALIDATION_FAILED');
    }
    // Another person's, or the same person's on another site: nothing of bob's.
    expect((await ok('GET', url, ada)).meta.total).toBe(0);
    expect((await ok('GET', url, ada, undefined, 'other')).meta.total).toBe(0);
  });

  it('keeps consents per site and per person', async () => {
    const other = await ok('GET', '/api/v1/me/consents/marketing', ada, undefined, 'other');
    expect(other.data.updatedAt).toBeNull();
    const bobs = await ok('GET', '/api/v1/me/consents/analytics', bob);
    expect(bobs.data.granted).toBe(false);
  });

  it('refuses unknown types, bad bodies, API keys and anonymous callers', async () => {
    const unknown = await call('PUT', '/api/v1/me/consents/cookies', ada, { granted: true, source: 's', version: 'v' });
    expect(unknown.statusCode).toBe(400);
    expect(unknown.json().errors[0].path).toEqual(['params', 'type']);
    for (const body of [
      { granted: 'yes', source: 's', version: 'v' },
      { granted: true, source: '', version: 'v' },
      { granted: true, source: 'x'.repeat(201), version: 'v' },
      { granted: true, source: 's', version: 'v', extra: 1 },
      JSON.parse('{"granted": true, "source": "s", "version": "v", "__proto__": {"admin": true}}'),
    ]) {
      const res = await call('PUT', '/api/v1/me/consents/marketing', ada, body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
    }
    const key = await ok('POST', '/api/v1/api-keys', admin, { name: 'server', roleKey: 'editor' });
    const byKey = await call('PUT', '/api/v1/me/consents/marketing', key.data.key, {
      granted: true,
      source: 's',
      version: 'v',
    });
    expect(byKey.statusCode).toBe(403);
    expect(byKey.json().errors[0].code).toBe('PERMISSION_DENIED');
    expect((await call('GET', '/api/v1/me/restriction', key.data.key)).statusCode).toBe(403);
    const anonymous = await t.call({ method: 'GET', url: '/api/v1/me/consents', site: 'main' });
    expect(anonymous.statusCode).toBe(401);
  });

  it("shows a member's consents to the site's admins, and only to them", async () => {
    const adaId = await userIdOf(ada);
    const seen = await ok('GET', `/api/v1/users/${adaId}/consents`, admin);
    expect(seen.data.find((c: { consentType: string }) => c.consentType === 'marketing').granted).toBe(false);
    expect((await call('GET', `/api/v1/users/${adaId}/consents`, bob)).statusCode).toBe(403);
    // Another site's admin sees Ada's choices on that site only (there she chose nothing).
    const there = await ok('GET', `/api/v1/users/${adaId}/consents`, otherAdmin, undefined, 'other');
    expect(there.data.every((c: { updatedAt: null }) => c.updatedAt === null)).toBe(true);
    expect((await call('GET', `/api/v1/users/${adaId}/consents`, otherAdmin, undefined, 'main')).statusCode).toBe(403);
    const bobId = await userIdOf(bob);
    expect((await call('GET', `/api/v1/users/${bobId}/consents`, otherAdmin, undefined, 'other')).statusCode).toBe(404);
    expect((await call('GET', '/api/v1/users/nobody/consents', admin)).statusCode).toBe(404);
  });
});

describe('restriction of processing', () => {
  it('is off until the person restricts it; on and off are events', async () => {
    expect((await ok('GET', '/api/v1/me/restriction', bob)).data).toEqual({
      restricted: false,
      reason: null,
      updatedAt: null,
    });
    const on = await ok('PUT', '/api/v1/me/restriction', bob, { restricted: true, reason: 'accuracy contested' });
    expect(on.data).toMatchObject({ restricted: true, reason: 'accuracy contested' });
    expect((await ok('GET', '/api/v1/me/restriction', bob, undefined, 'main')).data.restricted).toBe(true);
    const audit = await ok('GET', '/api/v1/audit?type=ProcessingRestricted', admin);
    expect(audit.data).toHaveLength(1);
    const off = await ok('PUT', '/api/v1/me/restriction', bob, { restricted: false });
    expect(off.data).toMatchObject({ restricted: false, reason: null });
    expect((await call('PUT', '/api/v1/me/restriction', bob, { restricted: 'yes' })).statusCode).toBe(400);
  });

  it('sends no webhook for a restricted person’s acts or records, and sends again once lifted', async () => {
    await ok('POST', '/api/v1/collections', admin, { name: 'notes' });
    await ok('POST', '/api/v1/fields/notes', admin, { field: 'title', type: 'string' });
    const hook = await ok('POST', '/api/v1/webhooks', admin, {
      name: 'all notes',
      url: 'https://hooks.example.com/notes',
      events: ['items.create', 'items.update'],
      collections: ['notes'],
      enabled: true,
    });
    await ok('PUT', '/api/v1/me/restriction', ada, { restricted: true });
    const adas = await ok('POST', '/api/v1/items/notes', ada, { title: 'by a restricted person' });
    const bobs = await ok('POST', '/api/v1/items/notes', bob, { title: 'by someone else' });
    await ok('PATCH', `/api/v1/items/notes/${adas.data.id}`, bob, { title: 'her record, changed by another' });
    await t.deps.drainReactors(WEBHOOK_DISPATCHER);
    const deliveries = async () =>
      (await ok('GET', `/api/v1/webhooks/${hook.data.id}/deliveries`, admin)).data as {
        event: string;
        payload: { data: { id: string } };
      }[];
    expect((await deliveries()).map((d) => d.payload.data.id)).toEqual([bobs.data.id]);
    // Restricted on one site only: her acts elsewhere are not held back by it (checked on this site's rows).
    await ok('PUT', '/api/v1/me/restriction', ada, { restricted: false });
    const later = await ok('POST', '/api/v1/items/notes', ada, { title: 'after the restriction' });
    await t.deps.drainReactors(WEBHOOK_DISPATCHER);
    expect((await deliveries()).map((d) => d.payload.data.id).sort()).toEqual([bobs.data.id, later.data.id].sort());
  });
  it('sends a restricted person no marketing mail, and sends again once lifted', async () => {
    const mail = { siteId: 'main', to: 'bob@consent.test', subject: 'News', body: 'Hello' };
    await ok('PUT', '/api/v1/me/restriction', bob, { restricted: true, reason: 'objection' });
    expect(await queueMarketingMail(t.deps, mail)).toEqual({ queued: false, reason: 'restricted' });
    // Restricted on this site only: another site's marketing is not held back by it.
    expect(await queueMarketingMail(t.deps, { ...mail, siteId: 'other' })).toEqual({ queued: true });
    await ok('PUT', '/api/v1/me/restriction', bob, { restricted: false });
    expect(await queueMarketingMail(t.deps, mail)).toEqual({ queued: true });
  });

  it("puts the person's consents with their history and their restriction in their data export", async () => {
    const res = await call('GET', '/api/v1/me/data-export', ada);
    expect(res.statusCode).toBe(200);
    const doc = JSON.parse(res.body);
    const marketing = doc.parts.consents.find(
      (c: { site: string; consentType: string }) => c.site === 'main' && c.consentType === 'marketing',
    );
    expect(marketing.current).toMatchObject({ granted: false, source: 'settings' });
    expect(marketing.history.map((h: { event: string }) => h.event)).toEqual(['consent_granted', 'consent_withdrawn']);
    expect(doc.parts.restriction).toEqual(
      expect.arrayContaining([expect.objectContaining({ site: 'main', restricted: false })]),
    );
  });
});
