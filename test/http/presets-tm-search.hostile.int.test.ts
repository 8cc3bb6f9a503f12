import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiClient, type Method } from '../setup/api.ts';
import { createTestApp, type TestApp } from '../setup/app.ts';
import { createUser } from '../setup/users.ts';

/**
 * The routes of presets, the translation memory and search, called as another site's admin, anonymously and with
 * hostile input: each answer is a 4xx envelope with an error code, never a 5xx, and nothing of site main shows.
 */
let t: TestApp;
let admin: string;
let otherAdmin: string;
const { call, ok } = apiClient(
  () => t,
  () => admin,
);
const ids: { preset: string; entry: string; term: string } = { preset: '', entry: '', term: '' };

beforeAll(async () => {
  t = await createTestApp();
  admin = await t.setup();
  await ok('POST', '/api/v1/sites', { id: 'other', name: 'Other' });
  otherAdmin = await createUser(t, 'other-admin@example.com', 'Hostile-input-2718!', { other: 'admin' });
  await ok('POST', '/api/v1/collections', { name: 'posts' });
  await ok('POST', '/api/v1/fields/posts', { field: 'title', type: 'string' });
  await ok('POST', '/api/v1/items/posts', { id: 'p1', title: 'zanzibar quokka' });
  ids.preset = (await ok('POST', '/api/v1/presets', { collection: 'posts', bookmark: 'mine' })).id;
  const entry = { sourceLang: 'en', targetLang: 'de', source: 'quokka secret', target: 'Quokka Geheimnis' };
  ids.entry = (await ok('POST', '/api/v1/tm', entry)).id;
  ids.term = (
    await ok('POST', '/api/v1/tm/glossary', {
      sourceLang: 'en',
      targetLang: 'de',
      term: 'quokka',
      translation: 'Quokka',
    })
  ).id;
}, 120_000);
afterAll(() => t.close());

type Route = [Method, string, unknown?];
const routes = (): Route[] => [
  ['GET', '/api/v1/presets'],
  ['GET', '/api/v1/presets/effective?collection=posts'],
  ['GET', '/api/v1/presets/bookmarks?collection=posts'],
  ['POST', '/api/v1/presets', { collection: 'posts', bookmark: 'x' }],
  ['PATCH', `/api/v1/presets/${ids.preset}`, { bookmark: 'y' }],
  ['DELETE', `/api/v1/presets/${ids.preset}`],
  ['GET', '/api/v1/tm'],
  ['POST', '/api/v1/tm', { sourceLang: 'en', targetLang: 'de', source: 'a', target: 'b' }],
  ['PATCH', `/api/v1/tm/${ids.entry}`, { target: 'x' }],
  ['DELETE', `/api/v1/tm/${ids.entry}`],
  ['POST', '/api/v1/tm/lookup', { query: 'quokka secret', sourceLang: 'en', targetLang: 'de' }],
  ['POST', '/api/v1/tm/translate', { text: 'quokka secret', from: 'en', to: 'de' }],
  ['GET', '/api/v1/tm/glossary'],
  ['PATCH', `/api/v1/tm/glossary/${ids.term}`, { translation: 'x' }],
  ['DELETE', `/api/v1/tm/glossary/${ids.term}`],
  ['GET', '/api/v1/tm/export'],
  ['GET', '/api/v1/search?q=quokka'],
];

const expectEnvelope4xx = (res: { statusCode: number; body: string }, what: string) => {
  expect(res.statusCode, `${what}: ${res.body}`).toBeGreaterThanOrEqual(400);
  expect(res.statusCode, `${what}: ${res.body}`).toBeLessThan(500);
  expect(JSON.parse(res.body).errors[0].code, what).toMatch(/^[A-Z_]+$/);
};

describe('presets, translation memory and search against hostile callers', () => {
  it('answers anonymous callers 401 on every route', async () => {
    for (const [method, url, body] of routes()) {
      const res = await call(method, url, body, { as: null });
      expect(res.statusCode, `${method} ${url}`).toBe(401);
    }
  });

  it("never shows or changes site main's records to site other's admin", async () => {
    for (const [method, url, body] of routes()) {
      const res = await call(method, url, body, { as: otherAdmin, site: 'other' });
      // Site other's memory has no match and no provider is set: translate's precise answer there is 503.
      if (url.endsWith('/translate')) expect(res.json().errors[0].code).toBe('TRANSLATION_PROVIDER_UNAVAILABLE');
      else expect(res.statusCode, `${method} ${url}: ${res.body}`).toBeLessThan(500);
      expect(res.body, `${method} ${url}`).not.toMatch(/quokka|zanzibar|mine/i);
    }
    // Still there on site main.
    expect((await ok('GET', '/api/v1/tm')).map((e: { id: string }) => e.id)).toContain(ids.entry);
    expect((await ok('GET', '/api/v1/presets')).map((p: { id: string }) => p.id)).toContain(ids.preset);
    expect((await ok('GET', '/api/v1/tm/glossary')).map((g: { id: string }) => g.id)).toContain(ids.term);
  });

  it('answers NUL bytes, prototype keys, huge numbers and deep nesting with a 4xx envelope', async () => {
    let deep: unknown = { title: { _eq: 'x' } };
    for (let i = 0; i < 200; i++) deep = { _and: [deep] };
    const hostile: Route[] = [
      ['POST', '/api/v1/presets', { collection: 'posts\u0000', bookmark: 'n' }],
      ['POST', '/api/v1/presets', JSON.parse('{"collection":"posts","bookmark":"p","__proto__":{"x":1}}')],
      [
        'POST',
        '/api/v1/presets',
        { collection: 'posts', bookmark: 'c', layoutOptions: { constructor: { prototype: 1 } } },
      ],
      ['POST', '/api/v1/presets', { collection: 'posts', bookmark: 'd', query: { filter: deep } }],
      ['POST', '/api/v1/presets', { collection: 'posts', bookmark: 'l', query: { limit: 1e308 } }],
      ['GET', '/api/v1/presets?limit=99999999999999999999'],
      ['POST', '/api/v1/tm', { sourceLang: 'en', targetLang: 'de', source: 'a\u0000b', target: 'c' }],
      ['POST', '/api/v1/tm', { sourceLang: '__proto__', targetLang: 'de', source: 'a', target: 'c' }],
      ['POST', '/api/v1/tm', { sourceLang: 'en', targetLang: 'de', source: 'a', target: 'c', quality: 1e308 }],
      ['GET', '/api/v1/tm?offset=1e309'],
      ['POST', '/api/v1/tm/lookup', { query: 'x', sourceLang: 'en', targetLang: 'de', threshold: 1e308 }],
      ['POST', '/api/v1/tm/lookup', { query: 'x'.repeat(10_000), sourceLang: 'en', targetLang: 'de' }],
      ['POST', '/api/v1/tm/glossary', { sourceLang: 'en', targetLang: 'constructor', term: 'a', translation: 'b' }],
      ['POST', '/api/v1/tm/translate', { text: { __proto__: 'x' }, from: 'en', to: 'de' }],
      ['GET', '/api/v1/search?q=a%00b'],
      ['GET', '/api/v1/search?q=a&offset=99999999999999999999'],
      ['GET', '/api/v1/search?q=a&collection=__proto__'],
    ];
    for (const [method, url, body] of hostile) expectEnvelope4xx(await call(method, url, body), `${method} ${url}`);
  });
});
