import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/setup/app.ts';
import { createUser } from '../../../test/setup/users.ts';
import { collect } from '../../kernel/es/event-store.ts';

const V0 = randomBytes(32).toString('base64');
const V1 = randomBytes(32).toString('base64');
let t: TestApp;
let admin: string;
let viewer: string;
const call = (method: 'GET' | 'POST' | 'PATCH' | 'PUT', url: string, payload?: unknown, site = 'main', as = admin) =>
  t.call({ method, url, payload: payload as object, as, site });
const login = async () => {
  const res = await call('POST', '/api/v1/auth/login', { email: 'admin@example.com', password: 'Correct-horse-42!' });
  admin = res.json().data.token;
};

beforeAll(async () => {
  t = await createTestApp({ env: { ENCRYPTION_KEY: V0 } });
  admin = await t.setup();
  viewer = await createUser(t, 'viewer@example.com', 'Viewer-pass-1234', { main: 'viewer' });
  await call('POST', '/api/v1/sites', { id: 'other', name: 'Other' });
  for (const site of ['main', 'other']) {
    await call('POST', '/api/v1/collections', { name: 'people' }, site);
    await call('POST', '/api/v1/fields/people', { field: 'name', type: 'string' }, site);
    await call('POST', '/api/v1/fields/people', { field: 'ssn', type: 'string', encrypted: true }, site);
    await call('POST', '/api/v1/fields/people', { field: 'notes', type: 'json', encrypted: true }, site);
  }
});
afterAll(() => t.close());

const storedRow = async (id: string, site = 'main') =>
  (
    await sql<{
      data: Record<string, unknown>;
    }>`select data from item_documents where site_id = ${site} and id = ${id}`.execute(t.deps.database.owner)
  ).rows[0]!.data;

describe('encrypted fields', () => {
  it('stores only the envelope, in the log and the read model, and decrypts for writers', async () => {
    const res = await call('POST', '/api/v1/items/people', {
      id: 'p1',
      name: 'Ada',
      ssn: '123-45-6789',
      notes: { risk: 'low' },
    });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json().data).toMatchObject({ ssn: '123-45-6789', notes: { risk: 'low' } });
    const row = await storedRow('p1');
    expect(row.ssn).toMatch(/^v0:/);
    const events = await collect(t.deps.store.readStream('main/item/people/p1'));
    const log = JSON.stringify(events.map((e) => e.data));
    expect(log).not.toContain('123-45-6789');
    expect(log).not.toContain('low');
    expect((await call('GET', '/api/v1/items/people/p1')).json().data.ssn).toBe('123-45-6789');
    await call('PATCH', '/api/v1/items/people/p1', { ssn: '999-99-9999' });
    expect((await call('GET', '/api/v1/items/people?fields=ssn')).json().data[0].ssn).toBe('999-99-9999');
  });

  it("reads '***' for a caller who may not decrypt", async () => {
    const one = (await call('GET', '/api/v1/items/people/p1', undefined, 'main', viewer)).json().data;
    expect(one).toMatchObject({ name: 'Ada', ssn: '***', notes: '***' });
  });

  it('type-checks the plaintext, and refuses filters and sorts on encrypted fields', async () => {
    const bad = await call('POST', '/api/v1/items/people', { name: 'x', ssn: 42 });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().errors[0].path).toEqual(['ssn']);
    for (const q of ['filter[ssn][_eq]=1', 'sort=ssn', 'aggregate[countDistinct]=ssn']) {
      const res = await call('GET', `/api/v1/items/people?${q}`);
      expect(res.statusCode, q).toBe(400);
    }
    expect(
      (await call('POST', '/api/v1/fields/people', { field: 'pin', type: 'integer', encrypted: true })).statusCode,
    ).toBe(400);
  });

  it('does not open a ciphertext moved to another item or site', async () => {
    const envelope = (await storedRow('p1')).ssn;
    await call('POST', '/api/v1/items/people', { id: 'p2', name: 'Bob' });
    await sql`update item_documents set data = data || ${JSON.stringify({ ssn: envelope })}::jsonb where id = 'p2'`.execute(
      t.deps.database.owner,
    );
    expect((await call('GET', '/api/v1/items/people/p2')).json().data.ssn).toBe('***');
  });

  it('re-wraps under a new active key until done, site by site, and old values still read', async () => {
    await call('POST', '/api/v1/items/people', [
      { id: 'p3', ssn: 'three' },
      { id: 'p4', ssn: 'four' },
    ]);
    await call('POST', '/api/v1/items/people', { id: 'o1', ssn: 'other-site' }, 'other');
    await t.restart({ ENCRYPTION_KEY: V0, ENCRYPTION_KEY_V1: V1, ENCRYPTION_ACTIVE_KEY_ID: 'v1' });
    await login();
    expect((await call('GET', '/api/v1/items/people/p3')).json().data.ssn).toBe('three');
    const res = await call('POST', '/api/v1/admin/encryption/envelope/migrate');
    expect(res.statusCode, res.body).toBe(200);
    // p2 holds p1's moved envelope: it cannot be opened there, so it stays as it is.
    expect(res.json().data).toMatchObject({ activeKeyId: 'v1', rewrapped: 3, unreadable: 1, remaining: 0, done: true });
    expect((await storedRow('p3')).ssn).toMatch(/^v1:/);
    expect((await storedRow('o1', 'other')).ssn).toMatch(/^v0:/);
    const events = await collect(t.deps.store.readStream('main/item/people/p3'));
    expect(events.at(-1)!.type).toBe('ItemRewrapped');
    await t.restart({ ENCRYPTION_KEY_V1: V1 });
    await login();
    expect((await call('GET', '/api/v1/items/people/p3')).json().data.ssn).toBe('three');
    expect((await call('GET', '/api/v1/items/people/p1')).json().data.notes).toEqual({ risk: 'low' });
    expect((await call('GET', '/api/v1/items/people/o1', undefined, 'other')).json().data.ssn).toBe('***');
    const after = (await call('POST', '/api/v1/admin/encryption/envelope/migrate')).json().data;
    expect(after).toMatchObject({ rewrapped: 0, remaining: 0, done: true });
    expect(
      (await call('POST', '/api/v1/admin/encryption/envelope/migrate', undefined, 'other')).json().data,
    ).toMatchObject({ unavailable: 1, done: true });
    expect(
      (await call('POST', '/api/v1/admin/encryption/envelope/migrate', undefined, 'main', viewer)).statusCode,
    ).toBe(403);
  });
});

describe('without an encryption key', () => {
  // Its own database: one written with a key wraps its subjects' keys under it and does not start without it.
  it('refuses to write an encrypted field: 503 and nothing stored', async () => {
    const plain = await createTestApp();
    try {
      const token = await plain.setup();
      const send = (url: string, payload: object) =>
        plain.call({ method: 'POST', url, payload, as: token, site: 'main' });
      await send('/api/v1/collections', { name: 'people' });
      await send('/api/v1/fields/people', { field: 'name', type: 'string' });
      await send('/api/v1/fields/people', { field: 'ssn', type: 'string', encrypted: true });
      const res = await send('/api/v1/items/people', { id: 'p9', name: 'Nokey', ssn: 'x' });
      expect(res.statusCode).toBe(503);
      expect(res.json().errors[0]).toMatchObject({ code: 'ENCRYPTION_NOT_CONFIGURED', path: ['ssn'] });
      const absent = await plain.call({ method: 'GET', url: '/api/v1/items/people/p9', as: token, site: 'main' });
      expect(absent.statusCode).toBe(404);
      expect((await send('/api/v1/items/people', { id: 'p10', name: 'Plain' })).statusCode).toBe(201);
    } finally {
      await plain.close();
    }
  });
});
