import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { sql } from 'kysely';
import { createTestApp, type TestApp } from '../../../test/setup/app.ts';
import { createUser } from '../../../test/setup/users.ts';
import { ManualClock } from '../../kernel/clock.ts';

const clock = new ManualClock(new Date());
let t: TestApp;
let admin: string;
let siteAdmin: string;
let editor: string;
type Method = 'GET' | 'POST' | 'DELETE';
const call = (method: Method, url: string, opts: { as?: string; site?: string; payload?: object; origin?: string }) =>
  t.call({
    method,
    url,
    as: opts.as,
    site: opts.site ?? 'main',
    payload: opts.payload,
    headers: opts.origin ? { origin: opts.origin } : {},
  });
const createKey = (payload: object, as = admin, site = 'main') =>
  call('POST', '/api/v1/api-keys', { as, site, payload });
const newKey = async (payload: object, as = admin, site = 'main') => {
  const res = await createKey(payload, as, site);
  expect(res.statusCode, res.body).toBe(201);
  return res.json().data as { id: string; key: string; prefix: string };
};
const SHOP = 'https://shop.example.com';

beforeAll(async () => {
  t = await createTestApp({ clock });
  admin = await t.setup();
  expect(
    (await call('POST', '/api/v1/sites', { as: admin, payload: { id: 'second', name: 'Second' } })).statusCode,
  ).toBe(201);
  siteAdmin = await createUser(t, 'siteadmin@example.com', 'Site-admin-pass-1', { main: 'site_admin' });
  editor = await createUser(t, 'editor@example.com', 'Editor-pass-1234', { main: 'editor' });
  await call('POST', '/api/v1/collections', { as: admin, payload: { name: 'articles' } });
  await call('POST', '/api/v1/fields/articles', { as: admin, payload: { field: 'title', type: 'string' } });
  const item = await call('POST', '/api/v1/items/articles', { as: admin, payload: { title: 'Hello' } });
  expect(item.statusCode, item.body).toBe(201);
});
afterAll(() => t.close());

describe('POST /api/v1/api-keys', () => {
  it('answers the plaintext key once, with its prefix, role and creator', async () => {
    const res = await createKey({ name: 'Build server', roleKey: 'editor' });
    expect(res.statusCode).toBe(201);
    const data = res.json().data;
    expect(data).toEqual({
      id: expect.stringMatching(/^[A-Za-z0-9]{21}$/),
      name: 'Build server',
      prefix: data.key.slice(0, 12),
      key: expect.stringMatching(/^svck_[A-Za-z0-9]{21}_[A-Za-z0-9_-]{43}$/),
      role: 'editor',
      publishable: false,
      allowedOrigins: null,
      expiresAt: null,
      createdAt: clock.now().toISOString(),
      createdBy: expect.any(String),
      lastUsedAt: null,
      revokedAt: null,
    });
    expect(data.key.startsWith(`svck_${data.id}_`)).toBe(true);
  });

  it('never shows the key nor its hash again', async () => {
    const { id, key } = await newKey({ name: 'Hidden', roleKey: 'viewer' });
    const secret = key.split('_').slice(2).join('_');
    const one = await call('GET', `/api/v1/api-keys/${id}`, { as: admin });
    const list = await call('GET', '/api/v1/api-keys', { as: admin });
    for (const res of [one, list]) {
      expect(res.statusCode).toBe(200);
      expect(res.body).not.toContain(secret);
      expect(res.body).not.toMatch(/[0-9a-f]{64}/);
      expect(res.body).not.toContain('"key"');
    }
    expect(one.json().data).toMatchObject({ id, name: 'Hidden', role: 'viewer' });
    expect(list.json().data.map((k: { id: string }) => k.id)).toContain(id);
  });

  it('takes a roleId as a role key', async () => {
    expect((await newKey({ name: 'By id', roleId: 'viewer' })) as object).toMatchObject({ role: 'viewer' });
  });

  it.each([
    [{ roleKey: 'viewer' }, ['body', 'name']],
    [{ name: '', roleKey: 'viewer' }, ['body', 'name']],
    [{ name: 'x'.repeat(201), roleKey: 'viewer' }, ['body', 'name']],
    [{ name: 'Both', roleKey: 'viewer', roleId: 'viewer' }, ['body', 'roleKey']],
    [{ name: 'Neither' }, ['body', 'roleKey']],
    [
      { name: 'Bad origin', roleKey: 'viewer', publishable: true, allowedOrigins: ['shop.example.com'] },
      ['body', 'allowedOrigins', '0'],
    ],
    [
      { name: 'Path origin', roleKey: 'viewer', publishable: true, allowedOrigins: [`${SHOP}/x`] },
      ['body', 'allowedOrigins', '0'],
    ],
    [{ name: 'Bad time', roleKey: 'viewer', expiresAt: 'tomorrow' }, ['body', 'expiresAt']],
    [{ name: 'Extra', roleKey: 'viewer', scope: 'all' }, ['body', 'scope']],
    [{ name: 'Unknown role', roleKey: 'overlord' }, ['role']],
    [{ name: 'Past', roleKey: 'viewer', expiresAt: '2020-01-01T00:00:00Z' }, ['expiresAt']],
    [{ name: 'Secret with origins', roleKey: 'viewer', allowedOrigins: [SHOP] }, ['allowedOrigins']],
    [{ name: 'Pub without origins', roleKey: 'viewer', publishable: true }, ['allowedOrigins']],
    [{ name: 'Pub editor', roleKey: 'editor', publishable: true, allowedOrigins: [SHOP] }, ['role']],
  ])('rejects %j with 400 VALIDATION_FAILED at %j', async (payload, path) => {
    const res = await createKey(payload);
    expect(res.statusCode).toBe(400);
    expect(res.json().errors[0]).toMatchObject({ code: 'VALIDATION_FAILED', path });
  });

  it('lets a site admin create keys up to site_admin, but not an admin key', async () => {
    const res = await createKey({ name: 'Too strong', roleKey: 'admin' }, siteAdmin);
    expect(res.statusCode).toBe(403);
    expect(res.json().errors[0].code).toBe('PERMISSION_DENIED');
    expect(await newKey({ name: 'Peer', roleKey: 'site_admin' }, siteAdmin)).toMatchObject({ role: 'site_admin' });
    expect(await newKey({ name: 'Root', roleKey: 'admin' }, admin)).toMatchObject({ role: 'admin' });
  });

  it('is for site admins only', async () => {
    const anonymous = await createKey({ name: 'Anon', roleKey: 'viewer' }, '');
    expect(anonymous.statusCode).toBe(401);
    expect((await createKey({ name: 'Editor', roleKey: 'viewer' }, editor)).statusCode).toBe(403);
    expect((await call('GET', '/api/v1/api-keys', {})).statusCode).toBe(401);
    expect((await call('GET', '/api/v1/api-keys', { as: editor })).statusCode).toBe(403);
    expect((await call('DELETE', '/api/v1/api-keys/abc', { as: editor })).statusCode).toBe(403);
  });
});

describe('a secret key', () => {
  it('reads the site it belongs to', async () => {
    const { key } = await newKey({ name: 'Reader', roleKey: 'viewer' });
    const site = await call('GET', '/api/v1/site', { as: key });
    expect(site.statusCode).toBe(200);
    expect(site.json().data.id).toBe('main');
    const items = await call('GET', '/api/v1/items/articles', { as: key });
    expect(items.statusCode).toBe(200);
    expect(items.json().data.map((i: { title: string }) => i.title)).toEqual(['Hello']);
  });

  it('is refused with one message when its secret, id or shape is wrong', async () => {
    const { id, key } = await newKey({ name: 'Tampered', roleKey: 'viewer' });
    const last = key.at(-1) === 'A' ? 'B' : 'A';
    for (const bad of [
      key.slice(0, -1) + last,
      key.replace(id, 'X'.repeat(21)),
      'svck_garbage',
      `svck_pub_${key.slice(5)}`,
    ]) {
      const res = await call('GET', '/api/v1/site', { as: bad });
      expect(res.statusCode).toBe(401);
      expect(res.json().errors[0]).toMatchObject({ code: 'UNAUTHENTICATED', message: 'invalid API key' });
    }
  });

  it('is refused on another site with 403', async () => {
    const { key } = await newKey({ name: 'Main only', roleKey: 'site_admin' });
    const res = await call('GET', '/api/v1/site', { as: key, site: 'second' });
    expect(res.statusCode).toBe(403);
    expect(res.json().errors[0].code).toBe('PERMISSION_DENIED');
  });

  it('writes with its role and is named as the actor of the events', async () => {
    const { id, key } = await newKey({ name: 'Writer', roleKey: 'editor' });
    const created = await call('POST', '/api/v1/items/articles', { as: key, payload: { title: 'By key' } });
    expect(created.statusCode, created.body).toBe(201);
    const audit = await call('GET', `/api/v1/audit?actor=${id}`, { as: admin });
    expect(audit.json().data).toEqual([
      expect.objectContaining({ type: 'ItemCreated', actor: { type: 'apiKey', id } }),
    ]);
    const viewer = await newKey({ name: 'Viewer', roleKey: 'viewer' });
    expect(
      (await call('POST', '/api/v1/items/articles', { as: viewer.key, payload: { title: 'No' } })).statusCode,
    ).toBe(403);
  });

  it('stops working the moment it is revoked; revoking again changes nothing', async () => {
    const { id, key } = await newKey({ name: 'Short lived', roleKey: 'viewer' });
    expect((await call('GET', '/api/v1/site', { as: key })).statusCode).toBe(200);
    const revoked = await call('DELETE', `/api/v1/api-keys/${id}`, { as: admin });
    expect(revoked.statusCode).toBe(200);
    expect(revoked.json().data).toMatchObject({ id, revokedAt: clock.now().toISOString() });
    expect((await call('GET', '/api/v1/site', { as: key })).statusCode).toBe(401);
    const again = await call('DELETE', `/api/v1/api-keys/${id}`, { as: admin });
    expect(again.statusCode).toBe(200);
    expect(again.json().data.revokedAt).toBe(revoked.json().data.revokedAt);
    const live = await call('GET', '/api/v1/api-keys', { as: admin });
    expect(live.json().data.map((k: { id: string }) => k.id)).not.toContain(id);
    const all = await call('GET', '/api/v1/api-keys?includeRevoked=true', { as: admin });
    expect(all.json().data.map((k: { id: string }) => k.id)).toContain(id);
  });

  it('stops working once it expires', async () => {
    const expiresAt = new Date(clock.now().getTime() + 5_000).toISOString();
    const { key } = await newKey({ name: 'Expiring', roleKey: 'viewer', expiresAt });
    expect((await call('GET', '/api/v1/site', { as: key })).statusCode).toBe(200);
    clock.advance(5_000);
    const res = await call('GET', '/api/v1/site', { as: key });
    expect(res.statusCode).toBe(401);
    expect(res.json().errors[0].message).toBe('invalid API key');
  });

  it('records when it was last used', async () => {
    const { id, key } = await newKey({ name: 'Telemetry', roleKey: 'viewer' });
    const usedAt = clock.now().toISOString();
    expect((await call('GET', '/api/v1/site', { as: key })).statusCode).toBe(200);
    const lastUsed = async () => (await call('GET', `/api/v1/api-keys/${id}`, { as: admin })).json().data.lastUsedAt;
    await vi.waitFor(async () => expect(await lastUsed()).toBe(usedAt));
    clock.advance(61_000);
    const later = clock.now().toISOString();
    expect((await call('GET', '/api/v1/site', { as: key })).statusCode).toBe(200);
    await vi.waitFor(async () => expect(await lastUsed()).toBe(later));
  });
});

describe('a publishable key', () => {
  let key: string;
  beforeAll(async () => {
    const created = await newKey({ name: 'Storefront', roleKey: 'viewer', publishable: true, allowedOrigins: [SHOP] });
    expect(created.key).toMatch(/^svck_pub_[A-Za-z0-9]{21}_[A-Za-z0-9_-]{43}$/);
    expect(created).toMatchObject({ publishable: true, allowedOrigins: [SHOP], prefix: created.key.slice(0, 12) });
    key = created.key;
  });

  it('reads from an allowed origin', async () => {
    const res = await call('GET', '/api/v1/items/articles', { as: key, origin: SHOP });
    expect(res.statusCode).toBe(200);
  });

  it('is refused from another origin or without one', async () => {
    for (const origin of ['https://evil.example.com', `${SHOP}:8443`, undefined]) {
      const res = await call('GET', '/api/v1/items/articles', { as: key, origin });
      expect(res.statusCode).toBe(403);
      expect(res.json().errors[0].code).toBe('PERMISSION_DENIED');
    }
  });

  it('may not write, even from an allowed origin', async () => {
    const res = await call('POST', '/api/v1/items/articles', { as: key, origin: SHOP, payload: { title: 'No' } });
    expect(res.statusCode).toBe(403);
    expect(res.json().errors[0]).toMatchObject({
      code: 'PERMISSION_DENIED',
      message: 'a publishable key may only read',
    });
  });
});

describe('GET and DELETE /api/v1/api-keys/:id', () => {
  it('answers 404 for an unknown key and for another site’s key', async () => {
    const { id, key } = await newKey({ name: 'Elsewhere', roleKey: 'viewer' }, admin, 'second');
    for (const method of ['GET', 'DELETE'] as const) {
      expect((await call(method, `/api/v1/api-keys/${id}`, { as: admin })).statusCode).toBe(404);
      const unknown = await call(method, '/api/v1/api-keys/NoSuchKey', { as: admin });
      expect(unknown.statusCode).toBe(404);
      expect(unknown.json().errors[0].code).toBe('NOT_FOUND');
    }
    expect(
      (await call('GET', '/api/v1/api-keys', { as: admin })).json().data.map((k: { id: string }) => k.id),
    ).not.toContain(id);
    expect((await call('GET', '/api/v1/site', { as: key, site: 'second' })).statusCode).toBe(200);
  });
});

describe('the api-keys projection', () => {
  it('rebuilt from the log equals the one built event by event (last-used times aside)', async () => {
    const rows = async () =>
      (
        await sql`select site_id, key_id, name, prefix, role, publishable, allowed_origins, secret_hash, expires_at,
                         created_by, created_at, revoked_at
                  from api_keys order by key_id`.execute(t.deps.database.owner)
      ).rows;
    const before = await rows();
    expect(before.length).toBeGreaterThan(10);
    expect(before.some((r) => (r as { revoked_at: unknown }).revoked_at !== null)).toBe(true);
    await t.deps.engine.rebuild('api-keys');
    expect(await rows()).toEqual(before);
  });
});

describe('API keys with custom roles', () => {
  it('accept a custom role of the site, ranked as the system role it stands on', async () => {
    const t2 = await createTestApp();
    try {
      const a = await t2.setup();
      const call = (method: 'GET' | 'POST', url: string, payload?: object, as = a) =>
        t2.call({ method, url, payload, as, site: 'main' });
      const reader = (await call('POST', '/api/v1/roles', { name: 'Reader', parentId: 'viewer' })).json().data.id;
      const created = await call('POST', '/api/v1/api-keys', { name: 'custom', roleId: reader });
      expect(created.statusCode, created.body).toBe(201);
      expect(created.json().data.role).toBe(reader);
      const key = created.json().data.key as string;
      expect((await t2.call({ method: 'GET', url: '/api/v1/site', as: key, site: 'main' })).statusCode).toBe(200);
      const pub = await call('POST', '/api/v1/api-keys', {
        name: 'pub',
        roleId: reader,
        publishable: true,
        allowedOrigins: ['https://example.com'],
      });
      expect(pub.statusCode).toBe(201);
      const boss = (await call('POST', '/api/v1/roles', { name: 'Boss', parentId: 'admin' })).json().data.id;
      const sa = await createUser(t2, 'keys-sa@example.com', 'Keys-site-admin-1!', { main: 'site_admin' });
      expect((await call('POST', '/api/v1/api-keys', { name: 'x', roleId: boss }, sa)).statusCode).toBe(403);
      expect((await call('POST', '/api/v1/api-keys', { name: 'x', roleId: 'nope' })).statusCode).toBe(400);
    } finally {
      await t2.close();
    }
  });
});
