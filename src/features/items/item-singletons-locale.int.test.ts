import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/setup/app.ts';

let t: TestApp;
let admin: string;
const call = (
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE',
  url: string,
  payload?: unknown,
  site = 'main',
  headers: Record<string, string> = {},
) => t.call({ method, url, payload: payload as object, as: admin, site, headers });

beforeAll(async () => {
  t = await createTestApp();
  admin = await t.setup();
  await call('POST', '/api/v1/sites', { id: 'other', name: 'Other' });
  for (const site of ['main', 'other']) {
    await call('POST', '/api/v1/collections', { name: 'settings', singleton: true }, site);
    await call('POST', '/api/v1/fields/settings', { field: 'title', type: 'string', required: true }, site);
    await call('POST', '/api/v1/fields/settings', { field: 'theme', type: 'string', default: 'light' }, site);
  }
  await call('POST', '/api/v1/collections', { name: 'pages' });
  await call('POST', '/api/v1/fields/pages', { field: 'title', type: 'string' });
  await call('POST', '/api/v1/fields/pages', { field: 'body', type: 'text' });
  await call('POST', '/api/v1/fields/pages', { field: 'translations', type: 'json' });
});
afterAll(() => t.close());

describe('singletons', () => {
  it('reads null before the first write, creates the one record on PATCH, then updates it', async () => {
    expect((await call('GET', '/api/v1/items/settings')).json()).toEqual({ data: null });
    const missing = await call('PATCH', '/api/v1/items/settings', { theme: 'dark' });
    expect(missing.statusCode).toBe(400);
    expect(missing.json().errors[0].path).toEqual(['title']);
    const first = await call('PATCH', '/api/v1/items/settings', { title: 'Main' });
    expect(first.statusCode).toBe(200);
    expect(first.json().data).toMatchObject({ id: 'singleton', title: 'Main', theme: 'light' });
    const second = await call('PATCH', '/api/v1/items/settings', { theme: 'dark' });
    expect(second.json().data).toMatchObject({ title: 'Main', theme: 'dark' });
    expect(second.json().meta.version).toBe(2);
    expect((await call('GET', '/api/v1/items/settings')).json().data).toMatchObject({ theme: 'dark' });
    expect((await call('GET', '/api/v1/items/settings', undefined, 'other')).json()).toEqual({ data: null });
  });

  it('refuses a second record and a collection-level PATCH of a normal collection', async () => {
    const post = await call('POST', '/api/v1/items/settings', { title: 'Another' });
    expect(post.statusCode).toBe(400);
    expect(post.json().errors[0]).toMatchObject({ code: 'VALIDATION_FAILED', path: ['collection'] });
    expect((await call('PATCH', '/api/v1/items/pages', { title: 'x' })).statusCode).toBe(400);
    expect((await call('PATCH', '/api/v1/items/nothing', { title: 'x' })).json().errors[0].code).toBe('NOT_FOUND');
  });

  it('comes back after a delete on the next PATCH', async () => {
    expect((await call('DELETE', '/api/v1/items/settings/singleton')).statusCode).toBe(204);
    expect((await call('GET', '/api/v1/items/settings')).json()).toEqual({ data: null });
    const again = await call('PATCH', '/api/v1/items/settings', { title: 'Again' });
    expect(again.json().data).toMatchObject({ title: 'Again', theme: 'light' });
  });
});

describe('a singleton written with X-Svc-Locale', () => {
  it('answers its record in the asked locale, and a malformed header is refused before anything is written', async () => {
    await call('POST', '/api/v1/collections', { name: 'banner', singleton: true });
    await call('POST', '/api/v1/fields/banner', { field: 'title', type: 'string' });
    await call('POST', '/api/v1/fields/banner', { field: 'translations', type: 'json' });
    const de = { 'x-svc-locale': 'de' };
    const written = await call(
      'PATCH',
      '/api/v1/items/banner',
      { title: 'Sale', translations: { de: { title: 'Rabatt' } } },
      'main',
      de,
    );
    expect(written.statusCode).toBe(200);
    expect(written.json().data.title).toBe('Rabatt');
    const bad = await call('PATCH', '/api/v1/items/banner', { title: 'Changed' }, 'main', {
      'x-svc-locale': 'not a locale',
    });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().errors[0].path).toEqual(['headers', 'x-svc-locale']);
    const now = await call('GET', '/api/v1/items/banner');
    expect(now.json().data.title).toBe('Sale');
  });
});

describe('X-Svc-Locale and X-Svc-Draft', () => {
  it('applies the translation of the asked locale server-side, falling back to the language, then the value', async () => {
    const page = (
      await call('POST', '/api/v1/items/pages', {
        title: 'Hello',
        body: 'Text',
        translations: { de: { title: 'Hallo', body: 'Inhalt' }, pt: { title: 'Olá' } },
      })
    ).json().data;
    const get = async (locale: string, query = '') =>
      (
        await call('GET', `/api/v1/items/pages/${page.id}${query}`, undefined, 'main', { 'x-svc-locale': locale })
      ).json().data;
    expect(await get('de')).toMatchObject({ title: 'Hallo', body: 'Inhalt' });
    expect(await get('pt-BR')).toMatchObject({ title: 'Olá', body: 'Text' });
    expect(await get('fr')).toMatchObject({ title: 'Hello', body: 'Text' });
    expect(await get('de', '?fields=title')).toEqual({ id: page.id, title: 'Hallo' });
    const list = await call('GET', '/api/v1/items/pages?fields=title', undefined, 'main', { 'x-svc-locale': 'de' });
    expect(list.json().data).toEqual([{ id: page.id, title: 'Hallo' }]);
    expect((await call('GET', `/api/v1/items/pages/${page.id}`)).json().data.title).toBe('Hello');
  });

  it('rejects malformed header values with 400 naming the header', async () => {
    for (const headers of [{ 'x-svc-locale': 'not a locale' }, { 'x-svc-draft': 'maybe' }] as Record<
      string,
      string
    >[]) {
      const res = await call('GET', '/api/v1/items/pages', undefined, 'main', headers);
      expect(res.statusCode).toBe(400);
      expect(res.json().errors[0].path[0]).toBe('headers');
    }
    expect((await call('GET', '/api/v1/items/pages', undefined, 'main', { 'x-svc-draft': 'true' })).statusCode).toBe(
      200,
    );
  });
});
