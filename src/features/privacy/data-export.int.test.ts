import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/setup/app.ts';
import { createUser } from '../../../test/setup/users.ts';
import { readZip } from '../../../test/support/zip-reader.ts';
import { ManualClock } from '../../kernel/clock.ts';
import { seal } from '../../platform/privacy/pii.ts';

const clock = new ManualClock(new Date('2026-04-01T00:00:00Z'));
const FIREFOX = 'Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0';
let t: TestApp;
let admin: string;
let alice: string;
let bob: string;
let aliceId: string;
let bobId: string;
const call = (method: 'GET' | 'POST' | 'PATCH', url: string, as: string, site = 'main', payload?: object) =>
  t.call({ method, url, as, site, payload });
const idOf = async (token: string) => (await call('GET', '/api/v1/auth/me', token)).json().data.id as string;

type Export = { exportedAt: string; subject: { id: string; sites: string[] }; parts: Record<string, unknown> };
type Listed = Record<string, unknown>[];
let doc: Export;
let raw: string;

/** A change by an AI agent, appended as an agent's command would append it. */
async function agentUpdate(site: string, id: string, changes: object) {
  const stream = `${site}/item/articles/${id}`;
  const version = (await t.deps.store.streamVersion(stream)) ?? 0;
  const at = clock.now().toISOString();
  const data = { collection: 'articles', id, changes, at, by: 'agent-7' };
  const metadata = {
    siteId: site,
    actor: { type: 'agent' as const, id: 'agent-7' },
    correlationId: 'agent-run',
    causationId: null,
    requestId: null,
    occurredAt: at,
  };
  await t.deps.store.append(stream, [{ type: 'ItemUpdated', data, metadata }], { expectedVersion: version });
}

/** An instance event whose actor is `actorId` and whose data holds a value sealed for `sealedFor`. */
async function noteWithSealedValue(actorId: string, sealedFor: string, value: string, label: string) {
  const at = clock.now().toISOString();
  await t.deps.store.append(
    `_system/note/${label}`,
    [
      {
        type: 'TestNoteWritten',
        data: { about: label, note: await seal(t.deps.db, t.deps.config.keyring, sealedFor, value), at },
        metadata: {
          siteId: '_system',
          actor: { type: 'user', id: actorId },
          correlationId: `note-${actorId}`,
          causationId: null,
          requestId: null,
          occurredAt: at,
        },
      },
    ],
    { expectedVersion: 'any' },
  );
}

async function seedPerson(token: string, prefix: string) {
  for (const site of ['main', 'second']) {
    const res = await call('POST', '/api/v1/items/articles', token, site, { id: `${prefix}-${site}`, title: prefix });
    expect(res.statusCode, res.body).toBe(201);
    await call('PATCH', `/api/v1/items/articles/${prefix}-${site}`, token, site, { title: `${prefix} (edited)` });
  }
}

beforeAll(async () => {
  t = await createTestApp({ clock });
  admin = await t.setup();
  expect((await call('POST', '/api/v1/sites', admin, 'main', { id: 'second', name: 'Second' })).statusCode).toBe(201);
  for (const site of ['main', 'second']) {
    await call('POST', '/api/v1/collections', admin, site, { name: 'articles' });
    await call('POST', '/api/v1/fields/articles', admin, site, { field: 'title', type: 'string' });
  }
  alice = await createUser(t, 'alice@example.com', 'Alice-pass-12345', { main: 'editor', second: 'editor' });
  bob = await createUser(t, 'bob@example.com', 'Bob-pass-1234567', { main: 'editor', second: 'editor' });
  [aliceId, bobId] = [await idOf(alice), await idOf(bob)];
  await call('PATCH', `/api/v1/users/${aliceId}`, admin, 'main', { firstName: 'Alice', lastName: 'Liddell' });
  const login = await t.call({
    method: 'POST',
    url: '/api/v1/auth/login',
    headers: { 'user-agent': FIREFOX },
    payload: { email: 'alice@example.com', password: 'Alice-pass-12345' },
  });
  expect(login.statusCode).toBe(200);
  clock.set('2026-04-02T00:00:00Z');
  await seedPerson(alice, 'alice');
  await seedPerson(bob, 'bob');
  await agentUpdate('main', 'alice-main', { title: 'alice, summarised' });
  await agentUpdate('main', 'bob-main', { title: 'bob, summarised' });
  await noteWithSealedValue(aliceId, bobId, 'bob-private-value', 'sealed-for-another');
  await noteWithSealedValue(aliceId, aliceId, 'alice-own-value', 'sealed-for-self');
  await noteWithSealedValue(bobId, bobId, 'bob-other-value', 'by-another');
  const res = await call('GET', '/api/v1/me/data-export', alice);
  expect(res.statusCode, res.body).toBe(200);
  raw = res.body;
  doc = res.json();
});
afterAll(() => t.close());

describe('GET /api/v1/me/data-export', () => {
  it('streams one JSON document as an attachment, naming the subject and the sites read', async () => {
    const res = await call('GET', '/api/v1/me/data-export', alice);
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(res.headers['content-disposition']).toMatch(/^attachment; filename="personal-data-2026-04-02\.json"$/);
    expect(doc.exportedAt).toBe('2026-04-02T00:00:00.000Z');
    expect(doc.subject).toEqual({ id: aliceId, sites: ['main', 'second'] });
    expect(Object.keys(doc.parts)).toEqual(
      expect.arrayContaining([
        'profile',
        'memberships',
        'sessions',
        'items',
        'revisions',
        'automated_decisions',
        'events',
      ]),
    );
  });

  it('holds the profile in clear and the memberships with their roles', () => {
    expect(doc.parts.profile).toEqual({
      id: aliceId,
      email: 'alice@example.com',
      firstName: 'Alice',
      lastName: 'Liddell',
      status: 'active',
      instanceAdmin: false,
      preferences: expect.any(Object),
    });
    expect(doc.parts.memberships).toEqual([
      { site: 'main', role: 'editor' },
      { site: 'second', role: 'editor' },
    ]);
  });

  it('lists the sessions redacted: times, methods, the user agent family and the network only', () => {
    const sessions = doc.parts.sessions as Listed;
    expect(sessions).toHaveLength(2);
    for (const s of sessions)
      expect(Object.keys(s).sort()).toEqual([
        'createdAt',
        'expiresAt',
        'id',
        'lastUsedAt',
        'methods',
        'network',
        'revokeReason',
        'revokedAt',
        'userAgentFamily',
      ]);
    expect(sessions.map((s) => s.userAgentFamily).sort()).toEqual(['Firefox', 'other']);
    expect(sessions.every((s) => s.network === '127.0.0.0/24')).toBe(true);
    expect(raw).not.toContain(FIREFOX);
    expect(raw).not.toContain('127.0.0.1');
  });

  it('holds the items the subject created and the revisions they made, on each of their sites', () => {
    const items = doc.parts.items as { site: string; collection: string; record: Record<string, unknown> }[];
    expect(items.map((i) => [i.site, i.collection, i.record.id, i.record.title])).toEqual([
      ['main', 'articles', 'alice-main', 'alice, summarised'],
      ['second', 'articles', 'alice-second', 'alice (edited)'],
    ]);
    expect(items[0]!.record.created_by).toBe(aliceId);
    const revisions = doc.parts.revisions as Listed;
    expect(revisions.map((r) => [r.site, r.itemId, r.action])).toEqual([
      ['main', 'alice-main', 'create'],
      ['main', 'alice-main', 'update'],
      ['second', 'alice-second', 'create'],
      ['second', 'alice-second', 'update'],
    ]);
  });

  it('holds the automated decisions about the subject’s content', () => {
    expect(doc.parts.automated_decisions).toEqual([
      expect.objectContaining({
        site: 'main',
        itemId: 'alice-main',
        actor: { type: 'agent', id: 'agent-7' },
        delta: { title: 'alice, summarised' },
      }),
    ]);
  });

  it('holds the events the subject caused and those of their own stream, with actor and correlation id', () => {
    const events = doc.parts.events as Listed;
    const created = events.filter((e) => e.type === 'ItemCreated');
    expect(created.map((e) => e.site).sort()).toEqual(['main', 'second']);
    expect(created[0]).toMatchObject({
      actor: { type: 'user', id: aliceId },
      correlationId: expect.any(String),
      stream: expect.stringMatching(/\/item\/articles\/alice-/),
      time: expect.any(String),
    });
    const registered = events.find((e) => e.type === 'UserRegistered')!;
    expect(registered.actor).toEqual({ type: 'system', id: 'test' });
    expect(registered.data).toMatchObject({ userId: aliceId, email: 'alice@example.com', passwordHash: '[redacted]' });
    const renamed = events.find((e) => e.type === 'UserProfileChanged')!;
    expect(renamed.data).toMatchObject({ firstName: 'Alice', lastName: 'Liddell' });
    const sessions = events.filter((e) => e.type === 'SessionStarted');
    expect(sessions).toHaveLength(2);
    // The log's copies of the address and the user agent are redacted as the sessions part shows them.
    expect(sessions.map((e) => (e.data as { ip: string }).ip)).toEqual(['127.0.0.0/24', '127.0.0.0/24']);
    expect(sessions.map((e) => (e.data as { userAgent: string }).userAgent)).toEqual(['[redacted]', '[redacted]']);
  });

  it('opens the subject’s own sealed values and leaves everyone else’s sealed', () => {
    const notes = (doc.parts.events as Listed).filter((e) => e.type === 'TestNoteWritten');
    expect(notes).toHaveLength(2);
    const own = notes.find((n) => (n.data as { about: string }).about === 'sealed-for-self')!;
    const other = notes.find((n) => (n.data as { about: string }).about === 'sealed-for-another')!;
    expect((own.data as { note: string }).note).toBe('alice-own-value');
    expect((other.data as { note: string }).note).toMatch(/^pii:/);
    expect(raw).not.toContain('bob-private-value');
  });

  it('holds nothing of another user', () => {
    for (const needle of [bobId, 'bob@example.com', 'bob-main', 'bob-second', 'by-another', 'bob-other-value'])
      expect(raw).not.toContain(needle);
  });

  it('streams a zip with one JSON file per part, each holding what the document holds', async () => {
    const res = await call('GET', '/api/v1/me/data-export?format=zip', alice);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('application/zip');
    expect(res.headers['content-disposition']).toMatch(/^attachment; filename="personal-data-2026-04-02\.zip"$/);
    const files = readZip(res.rawPayload);
    const names = Object.keys(doc.parts).map((p) => `${p}.json`);
    expect([...files.keys()].sort()).toEqual(['export.json', ...names].sort());
    expect(JSON.parse(files.get('export.json')!.toString('utf8'))).toEqual({
      exportedAt: doc.exportedAt,
      subject: doc.subject,
      parts: names,
    });
    for (const part of Object.keys(doc.parts)) {
      const parsed = JSON.parse(files.get(`${part}.json`)!.toString('utf8'));
      if (part === 'sessions') expect(parsed).toHaveLength((doc.parts.sessions as Listed).length);
      else expect(parsed).toEqual(doc.parts[part]);
    }
  });

  it('refuses an API key with 403 PERMISSION_DENIED', async () => {
    const key = await call('POST', '/api/v1/api-keys', admin, 'main', { name: 'Build', roleKey: 'editor' });
    expect(key.statusCode, key.body).toBe(201);
    const res = await call('GET', '/api/v1/me/data-export', key.json().data.key);
    expect(res.statusCode).toBe(403);
    expect(res.json().errors[0].code).toBe('PERMISSION_DENIED');
  });

  it('refuses an anonymous caller with 401 UNAUTHENTICATED', async () => {
    const res = await t.call({ method: 'GET', url: '/api/v1/me/data-export' });
    expect(res.statusCode).toBe(401);
    expect(res.json().errors[0].code).toBe('UNAUTHENTICATED');
  });

  it('refuses an unknown format with 400 on the query parameter', async () => {
    const res = await call('GET', '/api/v1/me/data-export?format=tar', alice);
    expect(res.statusCode).toBe(400);
    expect(res.json().errors[0]).toMatchObject({ code: 'VALIDATION_FAILED', path: ['query', 'format'] });
  });
});

describe('GET /api/v1/me/automated-decisions', () => {
  it('lists the agent revisions of the subject’s content on the site, as the export does', async () => {
    const res = await call('GET', '/api/v1/me/automated-decisions', alice);
    expect(res.statusCode).toBe(200);
    const { site: _site, ...fromExport } = (doc.parts.automated_decisions as Listed)[0]!;
    expect(res.json().data).toEqual([fromExport]);
  });
});
