import { createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, createTestApp, type TestApp } from '../../../test/setup/app.ts';
import { withSystem } from '../../kernel/tenancy/site.ts';
import { openSubjectKey, type StoredSubjectKey } from './pii.ts';
import { wrapSubjectKeys } from './subject-key-wrap.ts';

const A = randomBytes(32).toString('base64');
const B = randomBytes(32).toString('base64');
const PASSWORD = 'Wrapped-keys-2718!';

type Row = StoredSubjectKey & { subject_id: string };
const rows = (t: TestApp) =>
  withSystem(t.deps.database.owner, async (trx) => {
    const r = await sql<Row>`select subject_id, key, key_id from subject_keys order by subject_id`.execute(trx);
    return r.rows;
  });
const keyOf = async (t: TestApp, subjectId: string) => {
  const row = (await rows(t)).find((r) => r.subject_id === subjectId)!;
  return { row, key: openSubjectKey(t.deps.config.keyring, subjectId, row) };
};
/** The sealed address of a user's registration, as the log holds it. */
const sealedEmail = (t: TestApp, userId: string) =>
  withSystem(t.deps.database.owner, async (trx) => {
    const r = await sql<{ email: string }>`
      select data ->> 'email' as email from events where type = 'UserRegistered' and data ->> 'userId' = ${userId}`.execute(
      trx,
    );
    return r.rows[0]!.email;
  });
/** AES-256-GCM as pii.ts seals, opened with `key` directly: null when it does not open. */
function openWith(key: Buffer, sealed: string): string | null {
  const raw = Buffer.from(sealed.slice('pii:'.length), 'base64');
  try {
    const d = createDecipheriv('aes-256-gcm', key, raw.subarray(0, 12));
    d.setAuthTag(raw.subarray(raw.length - 16));
    return Buffer.concat([d.update(raw.subarray(12, raw.length - 16)), d.final()]).toString('utf8');
  } catch {
    return null;
  }
}
const fingerprint = (key: Buffer) => createHash('sha256').update(key).digest('hex').slice(0, 32);
const login = (t: TestApp, email: string, password: string) =>
  t.call({
    method: 'POST',
    url: '/api/v1/auth/login',
    payload: { email, password },
    headers: { 'user-agent': 'Lynx' },
  });

describe('subject keys with ENCRYPTION_KEY set', () => {
  let t: TestApp;
  let admin: string;
  let member: { id: string; email: string; token: string };
  beforeAll(async () => {
    t = await createTestApp({ env: { ENCRYPTION_KEY: A } });
    admin = await t.setup();
    const email = 'ada@keys.test';
    const created = await t.call({
      method: 'POST',
      url: '/api/v1/users',
      as: admin,
      site: 'main',
      payload: { email, password: PASSWORD, firstName: 'Ada', roleKey: 'editor' },
    });
    expect(created.statusCode, created.body).toBe(201);
    const res = await login(t, email, PASSWORD);
    expect(res.statusCode, res.body).toBe(200);
    member = { id: created.json().data.id, email, token: res.json().data.token };
  });
  afterAll(() => t.close());

  it('stores no subject key in clear: each is wrapped under v0, longer than the key it holds', async () => {
    const all = await rows(t);
    expect(all.length).toBeGreaterThanOrEqual(2);
    for (const row of all) {
      expect(row.key_id).toBe('v0');
      const key = openSubjectKey(t.deps.config.keyring, row.subject_id, row);
      expect(key).toHaveLength(32);
      expect(row.key.length).toBeGreaterThan(key.length);
      expect(row.key.includes(key)).toBe(false);
    }
  });

  it('opens the personal data with the key it holds, never with the stored bytes, and the service opens it', async () => {
    const sealed = await sealedEmail(t, member.id);
    const { row, key } = await keyOf(t, member.id);
    expect(openWith(key, sealed)).toBe(member.email);
    for (let i = 0; i + 32 <= row.key.length; i++) expect(openWith(row.key.subarray(i, i + 32), sealed)).toBeNull();
    const me = await t.call({ method: 'GET', url: '/api/v1/auth/me', as: member.token });
    expect(me.json().data).toMatchObject({ id: member.id, email: member.email });
  });

  it('serves login, the users list, sessions and the personal-data export', async () => {
    expect((await login(t, ADMIN.email, ADMIN.password)).statusCode).toBe(200);
    const users = await t.call({ method: 'GET', url: '/api/v1/users', as: admin, site: 'main' });
    expect(users.statusCode, users.body).toBe(200);
    expect(users.json().data.map((u: { email: string }) => u.email)).toContain(member.email);
    const sessions = await t.call({ method: 'GET', url: '/api/v1/me/sessions', as: member.token });
    expect(sessions.json().data).toEqual([expect.objectContaining({ ip: '127.0.0.0/24', current: true })]);
    const exported = await t.call({ method: 'GET', url: '/api/v1/me/data-export', as: member.token, site: 'main' });
    expect(exported.statusCode, exported.body).toBe(200);
    expect(exported.json().parts.profile).toMatchObject({ email: member.email, firstName: 'Ada' });
  });

  it('keeps opening after a rebuild of the read models from the log', async () => {
    for (const name of ['users', 'sessions']) await t.deps.engine.rebuild(name);
    expect((await login(t, member.email, PASSWORD)).statusCode).toBe(200);
  });

  it('refuses a start without the key or with another one, naming the variable and how many subjects need it', async () => {
    const n = (await rows(t)).length;
    await expect(t.restart({})).rejects.toThrow(
      `set ENCRYPTION_KEY (or ENCRYPTION_KEY_FILE): the personal-data keys of ${n} subjects are wrapped under encryption key v0`,
    );
    await expect(t.restart({ ENCRYPTION_KEY_V1: B })).rejects.toThrow('set ENCRYPTION_KEY (or ENCRYPTION_KEY_FILE)');
    await expect(t.restart({ ENCRYPTION_KEY: B })).rejects.toThrow(
      `ENCRYPTION_KEY is not the key the personal-data keys of ${n} subjects were wrapped with (encryption key v0)`,
    );
    await t.restart({ ENCRYPTION_KEY: A });
    expect((await t.call({ method: 'GET', url: '/api/v1/auth/me', as: member.token })).statusCode).toBe(200);
  });

  it('rewraps every key under the new active key (rotation), and still opens once the old key is gone', async () => {
    const before = new Map(
      (await rows(t)).map((r) => [r.subject_id, openSubjectKey(t.deps.config.keyring, r.subject_id, r)]),
    );
    await t.restart({ ENCRYPTION_KEY: A, ENCRYPTION_KEY_V1: B, ENCRYPTION_ACTIVE_KEY_ID: 'v1' });
    const rotated = await rows(t);
    expect(rotated.map((r) => r.key_id)).toEqual(rotated.map(() => 'v1'));
    await t.restart({ ENCRYPTION_KEY_V1: B });
    for (const r of await rows(t))
      expect(openSubjectKey(t.deps.config.keyring, r.subject_id, r)).toEqual(before.get(r.subject_id));
    for (const name of ['users', 'sessions']) await t.deps.engine.rebuild(name);
    const res = await login(t, member.email, PASSWORD);
    expect(res.statusCode, res.body).toBe(200);
    const me = await t.call({ method: 'GET', url: '/api/v1/auth/me', as: res.json().data.token });
    expect(me.json().data.email).toBe(member.email);
  });

  it('erases: the proof names the fingerprint of the key itself, and nothing opens after', async () => {
    const { key } = await keyOf(t, member.id);
    const res = await t.call({
      method: 'POST',
      url: '/api/v1/admin/erasure',
      as: admin,
      site: 'main',
      payload: { userId: member.id, reason: 'request' },
    });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json().data.keyFingerprint).toBe(fingerprint(key));
    // The key is gone; the row is the mark that no key is made for them again, and a rotation leaves it so.
    const mark = () => rows(t).then((all) => all.find((r) => r.subject_id === member.id));
    expect(await mark()).toMatchObject({ key_id: null, key: Buffer.alloc(0) });
    await t.restart({ ENCRYPTION_KEY_V1: B, ENCRYPTION_KEY_V2: A, ENCRYPTION_ACTIVE_KEY_ID: 'v2' });
    expect(await mark()).toMatchObject({ key_id: null, key: Buffer.alloc(0) });
    await t.deps.engine.rebuild('users');
    expect((await login(t, member.email, PASSWORD)).statusCode).toBe(401);
    expect((await t.call({ method: 'GET', url: '/api/v1/auth/me', as: admin })).statusCode).toBe(200);
  });
});

describe('subject keys stored in clear before ENCRYPTION_KEY was set', () => {
  let t: TestApp;
  afterAll(() => t.close());

  it('stay in clear without a key, and are wrapped at the first start with one, keeping the same keys', async () => {
    t = await createTestApp();
    await t.setup();
    const clear = await rows(t);
    expect(clear.length).toBeGreaterThan(0);
    for (const r of clear) {
      expect(r.key_id).toBeNull();
      expect(r.key).toHaveLength(32);
    }
    await t.restart({ ENCRYPTION_KEY: A });
    const wrapped = await rows(t);
    expect(wrapped.map((r) => r.subject_id)).toEqual(clear.map((r) => r.subject_id));
    wrapped.forEach((r, i) => {
      expect(r.key_id).toBe('v0');
      expect(openSubjectKey(t.deps.config.keyring, r.subject_id, r)).toEqual(clear[i]!.key);
    });
    expect((await login(t, ADMIN.email, ADMIN.password)).statusCode).toBe(200);
  });

  it('wraps each key once when two starts run at once, in batches, and a second run finds nothing to do', async () => {
    const v0 = t.deps.config.keyring.keys.get('v0')!;
    const ring = {
      keys: new Map([
        ['v0', v0],
        ['v1', randomBytes(32)],
      ]),
      activeKeyId: 'v1',
    };
    const before = await rows(t);
    const db = t.deps.database.owner;
    const runs = await Promise.all([wrapSubjectKeys(db, ring, { batch: 1 }), wrapSubjectKeys(db, ring, { batch: 1 })]);
    expect(runs.reduce((n, r) => n + r.rewrapped + r.wrapped, 0)).toBe(before.length);
    expect(await wrapSubjectKeys(db, ring)).toEqual({ wrapped: 0, rewrapped: 0 });
    const after = await rows(t);
    after.forEach((r, i) => {
      expect(r.key_id).toBe('v1');
      expect(openSubjectKey(ring, r.subject_id, r)).toEqual(
        openSubjectKey(t.deps.config.keyring, r.subject_id, before[i]!),
      );
    });
  });
});
