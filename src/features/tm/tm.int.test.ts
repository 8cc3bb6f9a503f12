import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/setup/app.ts';
import { apiClient } from '../../../test/setup/api.ts';
import { createUser } from '../../../test/setup/users.ts';

let t: TestApp;
let admin: string;
let adminB: string;
let editor: string;
let viewer: string;
let subscriber: string;

beforeAll(async () => {
  t = await createTestApp();
  admin = await t.setup();
  const res = await t.call({
    method: 'POST',
    url: '/api/v1/sites',
    as: admin,
    payload: { id: 'other', name: 'Other' },
  });
  expect(res.statusCode, res.body).toBe(201);
  adminB = await createUser(t, 'admin-b@example.com', 'Correct-horse-42!', { other: 'admin' });
  editor = await createUser(t, 'editor@example.com', 'Correct-horse-42!', { main: 'editor' });
  viewer = await createUser(t, 'viewer@example.com', 'Correct-horse-42!', { main: 'viewer' });
  subscriber = await createUser(t, 'subscriber@example.com', 'Correct-horse-42!', { main: 'subscriber' });
});
afterAll(() => t.close());

const { call } = apiClient(
  () => t,
  () => admin,
);
const entry = (body: object = {}) => ({
  sourceLang: 'en',
  targetLang: 'de',
  source: 'Hello world',
  target: 'Hallo Welt',
  ...body,
});
const upsert = async (body: object = {}, opts: { as?: string; site?: string } = {}) => {
  const res = await call('POST', '/api/v1/tm', entry(body), opts);
  expect(res.statusCode, res.body).toBeLessThan(300);
  return res.json().data as { id: string; source: string; target: string; quality: number; entrySource: string };
};
const error = (body: string) => JSON.parse(body).errors[0] as { code: string; path: string[]; message: string };

describe('POST /api/v1/tm', () => {
  it('creates an entry with 201, then updates the same normalised source with 200 on the same id', async () => {
    const res = await call('POST', '/api/v1/tm', entry({ source: 'Good  Morning', target: 'Guten Morgen' }));
    expect(res.statusCode, res.body).toBe(201);
    const created = res.json().data;
    expect(created).toMatchObject({ sourceLang: 'en', targetLang: 'de', quality: 100, entrySource: 'human' });
    expect(created.createdBy).toBeTruthy();
    const again = await call(
      'POST',
      '/api/v1/tm',
      entry({ source: ' good morning ', target: 'Guten Morgen!', quality: 80 }),
    );
    expect(again.statusCode, again.body).toBe(200);
    expect(again.json().data).toMatchObject({
      id: created.id,
      target: 'Guten Morgen!',
      quality: 80,
      source: ' good morning ',
    });
    const list = await call('GET', '/api/v1/tm?source=en&target=de');
    expect(list.json().data.filter((e: { id: string }) => e.id === created.id)).toHaveLength(1);
  });

  it('records every change as an event on the entry stream', async () => {
    const e = await upsert({ source: 'Event sourced', target: 'Ereignisbasiert' });
    await upsert({ source: 'Event sourced', target: 'Ereignisgesteuert' });
    const events = [];
    for await (const ev of t.deps.store.readStream(`main/tm-entry/${e.id}`)) events.push(ev.type);
    expect(events).toEqual(['TmEntryCreated', 'TmEntryUpdated']);
  });

  it('stores language tags in their canonical case', async () => {
    const e = await upsert({ sourceLang: 'en-us', targetLang: 'pt-br', source: 'Colour' });
    expect(e).toMatchObject({ sourceLang: 'en-US', targetLang: 'pt-BR' });
  });

  it.each([
    ['quality over 100', { quality: 101 }, 'quality'],
    ['quality under 0', { quality: -1 }, 'quality'],
    ['an unknown language code', { sourceLang: 'english' }, 'sourceLang'],
    ['__proto__ as a language', { targetLang: '__proto__' }, 'targetLang'],
    ['an empty source', { source: '   ' }, 'source'],
    ['a source over 5000 characters', { source: 'x'.repeat(5001) }, 'source'],
    ['an unknown key', { extra: 1 }, ''],
  ])('refuses %s with 400 VALIDATION_FAILED', async (_, body, field) => {
    const res = await call('POST', '/api/v1/tm', entry(body));
    expect(res.statusCode, res.body).toBe(400);
    expect(error(res.body).code).toBe('VALIDATION_FAILED');
    if (field) expect(res.body).toContain(field);
  });
});

describe('GET /api/v1/tm', () => {
  it('filters by language pair and origin and pages with meta { total, limit, offset }', async () => {
    await upsert({ sourceLang: 'fr', targetLang: 'it', source: 'Bonjour', target: 'Buongiorno' });
    await upsert({ sourceLang: 'fr', targetLang: 'it', source: 'Merci', target: 'Grazie', entrySource: 'provider' });
    await upsert({ sourceLang: 'fr', targetLang: 'it', source: 'Oui', target: 'Sì' });
    const page = await call('GET', '/api/v1/tm?source=fr&target=it&limit=2&offset=1');
    expect(page.statusCode, page.body).toBe(200);
    expect(page.json().meta).toEqual({ total: 3, limit: 2, offset: 1 });
    expect(page.json().data.map((e: { source: string }) => e.source)).toEqual(['Merci', 'Oui']);
    const provider = await call('GET', '/api/v1/tm?source=fr&entrySource=provider');
    expect(provider.json().data.map((e: { source: string }) => e.source)).toEqual(['Merci']);
  });

  it('refuses a limit over 200 and an unknown entrySource with 400', async () => {
    expect((await call('GET', '/api/v1/tm?limit=201')).statusCode).toBe(400);
    expect((await call('GET', '/api/v1/tm?entrySource=robot')).statusCode).toBe(400);
  });
});

describe('PATCH and DELETE /api/v1/tm/:id', () => {
  it('edits target, quality and source; a source another entry holds is 409 CONFLICT', async () => {
    const a = await upsert({ source: 'Patch me', target: 'Flick mich' });
    const b = await upsert({ source: 'Taken source', target: 'Vergeben' });
    const res = await call('PATCH', `/api/v1/tm/${a.id}`, { target: 'Ändere mich', quality: 60, source: 'Patched' });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data).toMatchObject({ id: a.id, source: 'Patched', target: 'Ändere mich', quality: 60 });
    const clash = await call('PATCH', `/api/v1/tm/${a.id}`, { source: 'TAKEN   source' });
    expect(clash.statusCode, clash.body).toBe(409);
    expect(error(clash.body)).toMatchObject({ code: 'CONFLICT', path: ['source'] });
    // The old source is free again: an upsert of it makes a new entry, the patched one keeps its id.
    const fresh = await call('POST', '/api/v1/tm', entry({ source: 'Patch me', target: 'Neu' }));
    expect(fresh.statusCode, fresh.body).toBe(201);
    expect(fresh.json().data.id).not.toBe(a.id);
    const patched = await call('POST', '/api/v1/tm', entry({ source: 'patched', target: 'Geflickt' }));
    expect(patched.statusCode, patched.body).toBe(200);
    expect(patched.json().data.id).toBe(a.id);
    expect(b.id).not.toBe(a.id);
  });

  it('refuses quality outside 0–100 on a patch', async () => {
    const a = await upsert({ source: 'Quality check' });
    expect((await call('PATCH', `/api/v1/tm/${a.id}`, { quality: 150 })).statusCode).toBe(400);
  });

  it('deletes an entry (204), then answers 404 for it; the same source can come back', async () => {
    const a = await upsert({ source: 'Delete me' });
    expect((await call('DELETE', `/api/v1/tm/${a.id}`)).statusCode).toBe(204);
    const again = await call('DELETE', `/api/v1/tm/${a.id}`);
    expect(again.statusCode).toBe(404);
    expect(error(again.body).code).toBe('NOT_FOUND');
    expect((await call('PATCH', `/api/v1/tm/${a.id}`, { target: 'x' })).statusCode).toBe(404);
    const back = await call('POST', '/api/v1/tm', entry({ source: 'Delete me' }));
    expect(back.statusCode).toBe(201);
    expect(back.json().data.id).toBe(a.id);
  });
});

describe('POST /api/v1/tm/lookup', () => {
  it('answers an exact normalised match with score 100', async () => {
    await upsert({ source: 'The quick brown fox', target: 'Der schnelle braune Fuchs' });
    const res = await call('POST', '/api/v1/tm/lookup', {
      query: '  THE quick   brown fox',
      sourceLang: 'en',
      targetLang: 'de',
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data.match).toMatchObject({ target: 'Der schnelle braune Fuchs', score: 100 });
  });

  it('scores a near match by edit distance and honours the threshold', async () => {
    await upsert({ source: 'Please save your changes', target: 'Bitte speichern Sie Ihre Änderungen' });
    const near = { query: 'Please save your change', sourceLang: 'en', targetLang: 'de' };
    const res = await call('POST', '/api/v1/tm/lookup', near);
    expect(res.json().data.match).toMatchObject({ source: 'Please save your changes', score: 96 });
    const strict = await call('POST', '/api/v1/tm/lookup', { ...near, threshold: 99 });
    expect(strict.json().data.match).toBeNull();
  });

  it('takes 75 as the threshold when none is given (the spec limit)', async () => {
    await upsert({ source: 'Please save all your changes now', target: 'Bitte jetzt alles speichern' });
    const ask = (query: string, more: object = {}) =>
      call('POST', '/api/v1/tm/lookup', { query, sourceLang: 'en', targetLang: 'de', ...more });
    // 8 of 32 characters away: 75, a match; 9 away: 72, none unless the threshold is lowered.
    expect((await ask('Please save all your cha')).json().data.match).toMatchObject({ score: 75 });
    expect((await ask('Please save all your ch')).json().data.match).toBeNull();
    expect((await ask('Please save all your ch', { threshold: 70 })).json().data.match).toMatchObject({ score: 72 });
  });

  it('answers null against an empty memory and for another language pair', async () => {
    const res = await call('POST', '/api/v1/tm/lookup', { query: 'Anything', sourceLang: 'ja', targetLang: 'ko' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ data: { match: null } });
    const other = await call('POST', '/api/v1/tm/lookup', { query: 'Hello world', sourceLang: 'en', targetLang: 'fr' });
    expect(other.json().data.match).toBeNull();
  });

  it.each([
    ['a 10 000-character query', { query: 'a'.repeat(10_000) }],
    ['a threshold over 100', { threshold: 101 }],
    ['a threshold under 0', { threshold: -5 }],
    ['an unknown language', { sourceLang: 'EN_us' }],
    ['__proto__ as a language', { targetLang: '__proto__' }],
  ])('refuses %s with 400 VALIDATION_FAILED', async (_, body) => {
    const res = await call('POST', '/api/v1/tm/lookup', {
      query: 'Hello',
      sourceLang: 'en',
      targetLang: 'de',
      ...body,
    });
    expect(res.statusCode, res.body).toBe(400);
    expect(error(res.body).code).toBe('VALIDATION_FAILED');
  });
});

describe('authorization', () => {
  it('answers 401 without credentials', async () => {
    expect((await call('GET', '/api/v1/tm', undefined, { as: null })).statusCode).toBe(401);
    expect(
      (await call('POST', '/api/v1/tm/lookup', { query: 'x', sourceLang: 'en', targetLang: 'de' }, { as: null }))
        .statusCode,
    ).toBe(401);
  });

  it('lets editors read and write, viewers only read, subscribers nothing', async () => {
    const e = await upsert({ source: 'Editor entry' }, { as: editor });
    expect((await call('PATCH', `/api/v1/tm/${e.id}`, { quality: 90 }, { as: editor })).statusCode).toBe(200);
    expect((await call('GET', '/api/v1/tm', undefined, { as: viewer })).statusCode).toBe(200);
    const lookup = { query: 'Editor entry', sourceLang: 'en', targetLang: 'de' };
    expect((await call('POST', '/api/v1/tm/lookup', lookup, { as: viewer })).json().data.match.id).toBe(e.id);
    const denied = await call('POST', '/api/v1/tm', entry({ source: 'Viewer entry' }), { as: viewer });
    expect(denied.statusCode).toBe(403);
    expect(error(denied.body).code).toBe('PERMISSION_DENIED');
    expect((await call('DELETE', `/api/v1/tm/${e.id}`, undefined, { as: viewer })).statusCode).toBe(403);
    expect((await call('GET', '/api/v1/tm', undefined, { as: subscriber })).statusCode).toBe(403);
    expect((await call('DELETE', `/api/v1/tm/${e.id}`, undefined, { as: editor })).statusCode).toBe(204);
  });
});

describe('across sites', () => {
  it("never shows, changes or matches site A's entries for site B's admin", async () => {
    const a = await upsert({ source: 'Only on site A', target: 'Nur auf A' });
    const asB = { as: adminB, site: 'other' };
    const list = await call('GET', '/api/v1/tm', undefined, asB);
    expect(list.statusCode).toBe(200);
    expect(list.json()).toEqual({ data: [], meta: { total: 0, limit: 25, offset: 0 } });
    expect((await call('PATCH', `/api/v1/tm/${a.id}`, { target: 'gekapert' }, asB)).statusCode).toBe(404);
    expect((await call('DELETE', `/api/v1/tm/${a.id}`, undefined, asB)).statusCode).toBe(404);
    const lookup = await call(
      'POST',
      '/api/v1/tm/lookup',
      { query: 'Only on site A', sourceLang: 'en', targetLang: 'de' },
      asB,
    );
    expect(lookup.json().data.match).toBeNull();
    const still = await call('POST', '/api/v1/tm/lookup', {
      query: 'Only on site A',
      sourceLang: 'en',
      targetLang: 'de',
    });
    expect(still.json().data.match).toMatchObject({ id: a.id, target: 'Nur auf A' });
  });

  it('gives the same source on two sites two entries', async () => {
    const a = await upsert({ source: 'Shared phrase' });
    const b = await upsert({ source: 'Shared phrase' }, { as: adminB, site: 'other' });
    expect(a.id).not.toBe(b.id);
  });
});
