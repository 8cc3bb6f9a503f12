import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../config.ts';
import { createTestApp, type TestApp } from '../../../test/setup/app.ts';
import { apiClient } from '../../../test/setup/api.ts';
import { createUser } from '../../../test/setup/users.ts';
import { startProviderServer, type ProviderServer } from './translate/provider-server.fixture.ts';

let t: TestApp;
let admin: string;
let adminB: string;
let viewer: string;
let server: ProviderServer;

beforeAll(async () => {
  server = await startProviderServer();
  t = await createTestApp();
  admin = await t.setup();
  await t.call({ method: 'POST', url: '/api/v1/sites', as: admin, payload: { id: 'other', name: 'Other' } });
  adminB = await createUser(t, 'admin-b@example.com', 'Correct-horse-42!', { other: 'admin' });
  viewer = await createUser(t, 'viewer@example.com', 'Correct-horse-42!', { main: 'viewer' });
});
afterAll(async () => {
  await t.close();
  await server.close();
});
beforeEach(() => {
  server.received.length = 0;
  server.state.fail = 0;
  server.state.delayMs = 0;
});

const { call } = apiClient(
  () => t,
  () => admin,
);
const error = (body: string) => JSON.parse(body).errors[0] as { code: string; extensions: Record<string, unknown> };
const term = (body: object) => ({ sourceLang: 'en', targetLang: 'de', ...body });
const translate = (text: string, opts: { as?: string; site?: string } = {}) =>
  call('POST', '/api/v1/tm/translate', { text, from: 'en', to: 'de' }, opts);
const useProvider = (env: Record<string, string>) =>
  t.restart({ SVC_TRANSLATE_ALLOW_PRIVATE: 'true', SVC_TRANSLATE_URL: server.url, ...env });

describe('glossary', () => {
  it('creates, lists, edits and deletes terms; a term of the pair twice is 409 CONFLICT', async () => {
    const res = await call('POST', '/api/v1/tm/glossary', term({ term: 'Cancel', translation: 'Abbrechen' }));
    expect(res.statusCode, res.body).toBe(201);
    const created = res.json().data;
    expect(created).toMatchObject({ term: 'Cancel', translation: 'Abbrechen', caseSensitive: false });
    const dup = await call('POST', '/api/v1/tm/glossary', term({ term: '  cancel ', translation: 'x' }));
    expect(dup.statusCode, dup.body).toBe(409);
    expect(error(dup.body).code).toBe('CONFLICT');
    const other = await call(
      'POST',
      '/api/v1/tm/glossary',
      term({ targetLang: 'fr', term: 'Cancel', translation: 'Annuler' }),
    );
    expect(other.statusCode).toBe(201);
    const list = await call('GET', '/api/v1/tm/glossary?source=en&target=de');
    expect(list.json().meta).toMatchObject({ total: 1 });
    const patched = await call('PATCH', `/api/v1/tm/glossary/${created.id}`, {
      translation: 'Abbruch',
      caseSensitive: true,
    });
    expect(patched.json().data).toMatchObject({ translation: 'Abbruch', caseSensitive: true });
    expect((await call('DELETE', `/api/v1/tm/glossary/${created.id}`)).statusCode).toBe(204);
    expect((await call('DELETE', `/api/v1/tm/glossary/${created.id}`)).statusCode).toBe(404);
    await call('DELETE', `/api/v1/tm/glossary/${other.json().data.id}`);
  });

  it('keeps __proto__ as a plain term and refuses it as a language', async () => {
    const res = await call(
      'POST',
      '/api/v1/tm/glossary',
      term({ targetLang: 'nl', term: '__proto__', translation: 'proto' }),
    );
    expect(res.statusCode, res.body).toBe(201);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    const bad = await call(
      'POST',
      '/api/v1/tm/glossary',
      term({ sourceLang: '__proto__', term: 'x', translation: 'y' }),
    );
    expect(bad.statusCode).toBe(400);
    expect((await call('DELETE', `/api/v1/tm/glossary/${res.json().data.id}`)).statusCode).toBe(204);
  });

  it("never shows or changes site A's terms to site B's admin", async () => {
    const a = (await call('POST', '/api/v1/tm/glossary', term({ term: 'Secret', translation: 'Geheim' }))).json().data;
    const asB = { as: adminB, site: 'other' };
    expect((await call('GET', '/api/v1/tm/glossary', undefined, asB)).json().data).toEqual([]);
    expect((await call('PATCH', `/api/v1/tm/glossary/${a.id}`, { translation: 'x' }, asB)).statusCode).toBe(404);
    expect((await call('DELETE', `/api/v1/tm/glossary/${a.id}`, undefined, asB)).statusCode).toBe(404);
    await call('DELETE', `/api/v1/tm/glossary/${a.id}`);
  });

  it('lets a viewer read the glossary but not write it', async () => {
    expect((await call('GET', '/api/v1/tm/glossary', undefined, { as: viewer })).statusCode).toBe(200);
    const res = await call('POST', '/api/v1/tm/glossary', term({ term: 'No', translation: 'Nein' }), { as: viewer });
    expect(res.statusCode).toBe(403);
  });
});

describe('POST /api/v1/tm/translate rights', () => {
  it('needs the right to add to the memory: a viewer, who may only read it, cannot spend the provider', async () => {
    const res = await translate('anything at all', { as: viewer });
    expect(res.statusCode).toBe(403);
    expect(res.json().errors[0].code).toBe('PERMISSION_DENIED');
  });
});

describe('POST /api/v1/tm/translate without a provider', () => {
  it('answers from the memory first (source tm, with the match)', async () => {
    await call('POST', '/api/v1/tm', {
      sourceLang: 'en',
      targetLang: 'de',
      source: 'Good evening',
      target: 'Guten Abend',
    });
    const res = await translate('good evening');
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data).toMatchObject({ text: 'Guten Abend', source: 'tm', match: { score: 100 } });
  });

  it('answers from the glossary when its terms cover the whole text', async () => {
    await call('POST', '/api/v1/tm/glossary', term({ term: 'Save', translation: 'Speichern' }));
    await call('POST', '/api/v1/tm/glossary', term({ term: 'Save as', translation: 'Speichern unter' }));
    await call('POST', '/api/v1/tm/glossary', term({ term: 'Discard', translation: 'Verwerfen' }));
    const res = await translate('Save as, discard!');
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data).toEqual({ text: 'Speichern unter, Verwerfen!', source: 'glossary' });
  });

  it('answers 503 TRANSLATION_PROVIDER_UNAVAILABLE when neither memory nor glossary covers the text', async () => {
    const res = await translate('Something nobody translated');
    expect(res.statusCode, res.body).toBe(503);
    expect(error(res.body).code).toBe('TRANSLATION_PROVIDER_UNAVAILABLE');
  });

  it("never answers from site A's memory on site B", async () => {
    const res = await translate('good evening', { as: adminB, site: 'other' });
    expect(res.statusCode).toBe(503);
  });

  it('refuses unknown languages and overlong texts with 400', async () => {
    const bad = await call('POST', '/api/v1/tm/translate', { text: 'x', from: 'en', to: 'deutsch' });
    expect(bad.statusCode).toBe(400);
    expect((await translate('y'.repeat(10_000))).statusCode).toBe(400);
  });
});

describe('POST /api/v1/tm/translate through DeepL', () => {
  beforeAll(() => useProvider({ SVC_TRANSLATE_PROVIDER: 'deepl', SVC_TRANSLATE_API_KEY: 'deepl-test-key:fx' }));

  it('sends the text with glossary placeholders kept as XML and puts the terms back', async () => {
    const res = await translate('Please click Save & wait');
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data).toEqual({ text: 'bitte klicken Speichern & warten', source: 'provider' });
    expect(server.received).toHaveLength(1);
    const [r] = server.received;
    expect(r!.path).toBe('/v2/translate');
    expect(r!.headers.authorization).toBe('DeepL-Auth-Key deepl-test-key:fx');
    expect(r!.headers['content-type']).toBe('application/json');
    expect(r!.body).toEqual({
      text: ['Please click <x id="0"/> &amp; wait'],
      source_lang: 'EN',
      target_lang: 'DE',
      tag_handling: 'xml',
      ignore_tags: ['x'],
    });
  });

  it('sends plain text when no term occurs, with the target variant DeepL names', async () => {
    const res = await call('POST', '/api/v1/tm/translate', { text: 'Hello world', from: 'en-GB', to: 'de-AT' });
    expect(res.json().data).toEqual({ text: 'hallo Welt', source: 'provider' });
    expect(server.received[0]!.body).toEqual({ text: ['Hello world'], source_lang: 'EN', target_lang: 'DE-AT' });
  });

  it('does not write provider answers to the memory', async () => {
    await translate('Hello the world');
    const list = await call('GET', '/api/v1/tm?entrySource=provider');
    expect(list.json().meta.total).toBe(0);
  });

  it('answers 502 TRANSLATION_PROVIDER_FAILED when DeepL fails or is too slow', async () => {
    server.state.fail = 456;
    const failed = await translate('Hello');
    expect(failed.statusCode, failed.body).toBe(502);
    expect(error(failed.body)).toMatchObject({
      code: 'TRANSLATION_PROVIDER_FAILED',
      extensions: { reason: 'status_456' },
    });
    server.state.fail = 0;
    await useProvider({ SVC_TRANSLATE_PROVIDER: 'deepl', SVC_TRANSLATE_API_KEY: 'k', SVC_TRANSLATE_TIMEOUT_MS: '200' });
    server.state.delayMs = 1000;
    const slow = await translate('Hello');
    expect(slow.statusCode, slow.body).toBe(502);
    expect(error(slow.body).extensions.reason).toBe('timeout');
  });

  it('refuses a provider on a loopback address unless SVC_TRANSLATE_ALLOW_PRIVATE is set', async () => {
    await t.restart({ SVC_TRANSLATE_PROVIDER: 'deepl', SVC_TRANSLATE_API_KEY: 'k', SVC_TRANSLATE_URL: server.url });
    const res = await translate('Hello');
    expect(res.statusCode, res.body).toBe(502);
    expect(error(res.body).extensions.reason).toBe('private_address');
    expect(server.received).toHaveLength(0);
  });
});

describe('POST /api/v1/tm/translate through LibreTranslate', () => {
  beforeAll(() => useProvider({ SVC_TRANSLATE_PROVIDER: 'libretranslate', SVC_TRANSLATE_API_KEY: 'libre-key' }));

  it('sends q, source, target, format and api_key, placeholders as HTML', async () => {
    const res = await translate('Hello <world> and save');
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data).toEqual({ text: 'hallo <Welt> und Speichern', source: 'provider' });
    const [r] = server.received;
    expect(r!.path).toBe('/translate');
    expect(r!.body).toEqual({
      q: ['Hello &lt;world&gt; and <x id="0"/>'],
      source: 'en',
      target: 'de',
      format: 'html',
      api_key: 'libre-key',
    });
  });

  it('answers 502 when LibreTranslate fails', async () => {
    server.state.fail = 500;
    const res = await translate('Hello');
    expect(res.statusCode).toBe(502);
    expect(error(res.body).code).toBe('TRANSLATION_PROVIDER_FAILED');
  });
});

describe('provider configuration', () => {
  it.each([
    [{ SVC_TRANSLATE_PROVIDER: 'deepl' }, 'SVC_TRANSLATE_API_KEY'],
    [{ SVC_TRANSLATE_PROVIDER: 'libretranslate' }, 'SVC_TRANSLATE_URL'],
    [{ SVC_TRANSLATE_URL: 'https://translate.example.com' }, 'SVC_TRANSLATE_PROVIDER'],
    [{ SVC_TRANSLATE_PROVIDER: 'google' }, 'SVC_TRANSLATE_PROVIDER'],
    [{ SVC_TRANSLATE_PROVIDER: 'libretranslate', SVC_TRANSLATE_URL: 'ftp://x.example.com' }, 'SVC_TRANSLATE_URL'],
  ])('refuses %j at start, naming %s', (env, name) => {
    expect(() => loadConfig(env)).toThrow(name);
  });
});
