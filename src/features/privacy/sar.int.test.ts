import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, createTestApp, type TestApp } from '../../../test/setup/app.ts';
import { ManualClock } from '../../kernel/clock.ts';
import { createUser } from '../../../test/setup/users.ts';
import { readZip } from '../../../test/support/zip-reader.ts';

let t: TestApp;
const clock = new ManualClock(new Date());
const DAY = 86_400_000;
let admin: string;
let secondAdmin: string;
let editor: string;
let aliceId: string;
let carolId: string;
const call = (method: 'GET' | 'POST', url: string, as: string, site = 'main', payload?: object) =>
  t.call({ method, url, as, site, payload });
const sar = (payload: object, as = admin, site = 'main') => call('POST', '/api/v1/admin/sar', as, site, payload);

beforeAll(async () => {
  t = await createTestApp({ clock });
  admin = await t.setup();
  expect((await call('POST', '/api/v1/sites', admin, 'main', { id: 'second', name: 'Second' })).statusCode).toBe(201);
  for (const site of ['main', 'second']) {
    await call('POST', '/api/v1/collections', admin, site, { name: 'articles' });
    await call('POST', '/api/v1/fields/articles', admin, site, { field: 'title', type: 'string' });
  }
  const alice = await createUser(t, 'alice@example.com', 'Alice-pass-12345', { main: 'editor', second: 'editor' });
  const carol = await createUser(t, 'carol@example.com', 'Carol-pass-12345', { main: 'editor' });
  secondAdmin = await createUser(t, 'second-admin@example.com', 'Second-pass-1234', { second: 'admin' });
  editor = carol;
  aliceId = (await call('GET', '/api/v1/auth/me', alice)).json().data.id;
  carolId = (await call('GET', '/api/v1/auth/me', carol)).json().data.id;
  await call('POST', '/api/v1/items/articles', alice, 'main', { id: 'on-main', title: 'Main' });
  await call('POST', '/api/v1/items/articles', alice, 'second', { id: 'on-second', title: 'Second' });
});
afterAll(() => t.close());

describe('POST /api/v1/admin/sar', () => {
  it('exports a member found by email into storage, answering 201 with id, size and SHA-256', async () => {
    const res = await sar({ email: 'Alice@Example.com' });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json().data).toEqual({
      id: expect.stringMatching(/^[0-9A-Za-z]{21}$/),
      subjectId: aliceId,
      format: 'json',
      createdAt: expect.any(String),
      size: expect.any(Number),
      sha256: expect.stringMatching(/^[0-9a-f]{64}$/),
    });
  });

  it('is fetched back byte for byte, holding only what the site keeps', async () => {
    const created = (await sar({ userId: aliceId })).json().data;
    const res = await call('GET', `/api/v1/admin/sar/${created.id}`, admin);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(res.headers['content-disposition']).toBe(`attachment; filename="subject-access-${created.id}.json"`);
    expect(res.rawPayload.length).toBe(created.size);
    expect(createHash('sha256').update(res.rawPayload).digest('hex')).toBe(created.sha256);
    const doc = res.json();
    expect(doc.subject).toEqual({ id: aliceId, sites: ['main'] });
    expect(doc.parts.profile.email).toBe('alice@example.com');
    // One site's request: its membership, its items and its events, nothing of the subject's other site.
    expect(doc.parts.memberships).toEqual([{ site: 'main', role: 'editor' }]);
    expect(doc.parts.items.map((i: { record: { id: string } }) => i.record.id)).toEqual(['on-main']);
    expect(res.body).not.toContain('on-second');
    expect(res.body).not.toContain('"second"');
  });

  it('exports a zip when asked, one JSON file per part', async () => {
    const created = (await sar({ userId: carolId, format: 'zip' })).json().data;
    expect(created.format).toBe('zip');
    const res = await call('GET', `/api/v1/admin/sar/${created.id}`, admin);
    expect(res.headers['content-type']).toBe('application/zip');
    const files = readZip(res.rawPayload);
    const manifest = JSON.parse(files.get('export.json')!.toString('utf8'));
    for (const name of manifest.parts as string[]) expect(() => JSON.parse(files.get(name)!.toString())).not.toThrow();
    expect(JSON.parse(files.get('profile.json')!.toString()).email).toBe('carol@example.com');
  });

  it('records an audit event without personal data', async () => {
    const created = (await sar({ userId: carolId })).json().data;
    const audit = await call('GET', '/api/v1/audit?type=SubjectAccessExported&limit=200', admin);
    const entry = audit.json().data.find((e: { data: { sarId: string } }) => e.data.sarId === created.id);
    expect(entry).toMatchObject({
      stream: `main/sar/${created.id}`,
      actor: { type: 'user' },
      data: { subjectId: carolId, size: created.size, sha256: created.sha256, format: 'json' },
    });
    expect(JSON.stringify(entry)).not.toContain('carol@example.com');
  });

  it('answers 404 for someone who is not a member of the site (another site’s admin asking)', async () => {
    const res = await sar({ userId: carolId }, secondAdmin, 'second');
    expect(res.statusCode).toBe(404);
    expect(res.json().errors[0]).toMatchObject({ code: 'NOT_FOUND', path: ['userId'] });
    const byEmail = await sar({ email: 'carol@example.com' }, secondAdmin, 'second');
    expect(byEmail.statusCode).toBe(404);
    expect((await sar({ email: 'nobody@example.com' })).json().errors[0].path).toEqual(['email']);
  });

  it('answers 404 to a site’s admin for an instance administrator who is a member (as the member routes do)', async () => {
    const mainAdmin = await createUser(t, 'main-admin@example.com', 'Main-pass-123456', { main: 'admin' });
    const instanceAdmin = await createUser(
      t,
      'ia-member@example.com',
      'Ia-pass-12345678',
      { main: 'viewer' },
      {
        instanceAdmin: true,
      },
    );
    const iaId = (await call('GET', '/api/v1/auth/me', instanceAdmin)).json().data.id;
    for (const who of [{ userId: iaId }, { email: 'ia-member@example.com' }]) {
      const res = await sar(who, mainAdmin);
      expect(res.statusCode, res.body).toBe(404);
      expect(res.json().errors[0].code).toBe('NOT_FOUND');
    }
    // Another instance administrator may: the export is the person's right, asked by someone of their standing.
    expect((await sar({ userId: iaId })).statusCode).toBe(201);
  });

  it('refuses a body naming neither or both with 400', async () => {
    for (const body of [{}, { userId: aliceId, email: 'alice@example.com' }]) {
      const res = await sar(body);
      expect(res.statusCode).toBe(400);
      expect(res.json().errors[0].code).toBe('VALIDATION_FAILED');
    }
  });

  it('is for the site’s admins only', async () => {
    expect((await sar({ userId: aliceId }, editor)).statusCode).toBe(403);
  });
});

describe('GET /api/v1/admin/sar/:id', () => {
  it('answers 404 to another site’s admin, and for an unknown id', async () => {
    const created = (await sar({ userId: aliceId })).json().data;
    const res = await call('GET', `/api/v1/admin/sar/${created.id}`, secondAdmin, 'second');
    expect(res.statusCode).toBe(404);
    expect(res.json().errors[0].code).toBe('NOT_FOUND');
    expect((await call('GET', '/api/v1/admin/sar/AAAAAAAAAAAAAAAAAAAAA', admin)).statusCode).toBe(404);
    expect((await call('GET', '/api/v1/admin/sar/not-an-id', admin)).statusCode).toBe(400);
  });
});

describe('retention of subject-access exports', () => {
  it('deletes the files past the sar_exports horizon, counts them, keeps newer ones and other sites’ own', async () => {
    const old = (await sar({ userId: aliceId })).json().data;
    const otherSite = (await sar({ userId: aliceId }, secondAdmin, 'second')).json().data;
    // Every export this site made so far is as old (the earlier tests' too).
    const made = (await call('GET', '/api/v1/audit?type=SubjectAccessExported&limit=200', admin)).json().data.length;
    expect(made).toBeGreaterThan(1);
    clock.advance(31 * DAY); // past the default horizon of 30 days
    // Tokens made before the jump expired meanwhile: sign in again.
    const login = async (who: { email: string; password: string }) =>
      (await t.call({ method: 'POST', url: '/api/v1/auth/login', payload: who })).json().data.token as string;
    const admin2 = await login(ADMIN);
    const fresh = (await sar({ userId: carolId }, admin2)).json().data;
    expect(fresh.id).toEqual(expect.any(String));

    const listed = await call('GET', '/api/v1/retention', admin2);
    expect(listed.json().data.find((k: { kind: string }) => k.kind === 'sar_exports')).toMatchObject({
      days: 30,
      source: 'default',
      available: true,
    });
    const run = await call('POST', '/api/v1/retention/run', admin2);
    expect(run.statusCode, run.body).toBe(200);
    expect(run.json().data.counts.sar_exports).toBe(made);

    const gone = await call('GET', `/api/v1/admin/sar/${old.id}`, admin2);
    expect(gone.statusCode).toBe(404);
    expect(gone.json().errors[0]).toMatchObject({ code: 'NOT_FOUND', path: ['id'], extensions: { reason: 'expired' } });
    expect(await t.deps.storage.get(`sites/main/sar/${old.id}.json`)).toBeNull();
    expect((await call('GET', `/api/v1/admin/sar/${fresh.id}`, admin2)).statusCode).toBe(200);
    // The other site's export is as old, but its site did not run: untouched.
    const second2 = await login({ email: 'second-admin@example.com', password: 'Second-pass-1234' });
    expect((await call('GET', `/api/v1/admin/sar/${otherSite.id}`, second2, 'second')).statusCode).toBe(200);

    // Run again at the same time: nothing left to prune; the deletion is in the audit log.
    expect((await call('POST', '/api/v1/retention/run', admin2)).json().data.counts.sar_exports).toBe(0);
    const audit = await call('GET', '/api/v1/audit?type=SubjectAccessExportDeleted', admin2);
    expect(audit.json().data).toHaveLength(made);
    expect(audit.json().data).toContainEqual(
      expect.objectContaining({ actor: { type: 'system', id: 'retention' }, stream: `main/sar/${old.id}` }),
    );
    // A rebuild of the read model brings back no file to delete: the log says it is gone.
    await t.deps.engine.rebuild('sar-exports');
    expect((await call('POST', '/api/v1/retention/run', admin2)).json().data.counts.sar_exports).toBe(0);
    expect((await call('POST', '/api/v1/retention/run', second2, 'second')).json().data.counts.sar_exports).toBe(1);
    expect((await call('GET', `/api/v1/admin/sar/${fresh.id}`, admin2)).statusCode).toBe(200);
  });
});
