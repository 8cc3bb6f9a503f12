import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiClient, firstError } from '../setup/api.ts';
import { createTestApp, type TestApp } from '../setup/app.ts';

/**
 * One rule for every id or key a caller chooses (issue 34, point 4): what no read could ever name (a prototype
 * member's name, which the edge refuses as a path parameter; a dot segment) is refused when it is made, with 400
 * VALIDATION_FAILED and the path of the key; what is accepted reads back.
 */
let t: TestApp;
let admin: string;
const { call, ok } = apiClient(
  () => t,
  () => admin,
);
const REFUSED = ['__proto__', 'constructor', 'prototype'];

beforeAll(async () => {
  t = await createTestApp();
  admin = await t.setup();
  await ok('POST', '/api/v1/collections', { name: 'articles' });
  await ok('POST', '/api/v1/fields/articles', { field: 'title', type: 'string' });
  await ok('POST', '/api/v1/items/articles', { id: 'a1', title: 'Main' });
});
afterAll(() => t.close());

/** Each refused key answers 400 VALIDATION_FAILED at `path`, and nothing is made. */
async function refusesEach(send: (key: string) => Promise<{ statusCode: number; body: string }>, path: string[]) {
  for (const key of REFUSED) {
    const res = await send(key);
    expect(res.statusCode, `${key}: ${res.body}`).toBe(400);
    expect(firstError(res.body), key).toMatchObject({ code: 'VALIDATION_FAILED', path });
  }
}

describe('POST /api/v1/items/:collection/:id/versions', () => {
  const v = (path = '') => `/api/v1/items/articles/a1/versions${path}`;
  it('refuses a version key no read can name, with the path of the key', async () => {
    await refusesEach((key) => call('POST', v(), { key, name: 'x' }), ['body', 'key']);
    for (const key of ['.', '..']) expect((await call('POST', v(), { key, name: 'x' })).statusCode).toBe(400);
    expect(await ok('GET', v())).toEqual([]);
  });
  it('reads back the keys it accepts', async () => {
    for (const key of ['toString', 'hasOwnProperty', '_proto_', 'draft-2']) {
      await ok('POST', v(), { key, name: key });
      expect((await ok('GET', v(`/${key}`))).key).toBe(key);
    }
  });
});

describe('POST /api/v1/items/:collection (client-chosen ids)', () => {
  it('refuses an item id no read can name, and reads back the ids it accepts', async () => {
    await refusesEach((id) => call('POST', '/api/v1/items/articles', { id, title: 'x' }), ['0', 'id']);
    await ok('POST', '/api/v1/items/articles', { id: 'valueOf', title: 'y' });
    expect((await ok('GET', '/api/v1/items/articles/valueOf')).id).toBe('valueOf');
  });
});

describe('POST /api/v1/presets (bookmark names)', () => {
  it('refuses a bookmark name no read can name, and lists the names it accepts', async () => {
    const save = (bookmark: string) =>
      call('POST', '/api/v1/presets', { collection: 'articles', scope: 'global', bookmark });
    await refusesEach(save, ['body', 'bookmark']);
    expect((await save('toString')).statusCode).toBe(201);
    const list = await ok('GET', '/api/v1/presets/bookmarks?collection=articles');
    expect(list.map((p: { bookmark: string }) => p.bookmark)).toEqual(['toString']);
  });
});

describe('POST /api/v1/flows (node ids)', () => {
  it('refuses a node id no read can name, at the path of the node', async () => {
    const save = (id: string) =>
      call('POST', '/api/v1/flows', {
        name: `flow ${id}`,
        trigger: 'manual',
        graph: { nodes: [{ id, operation: 'log', options: { message: 'hi' } }], edges: [] },
      });
    await refusesEach(save, ['graph', 'nodes', '0', 'id']);
    const flow = await ok('POST', '/api/v1/flows', {
      name: 'kept',
      trigger: 'manual',
      graph: { nodes: [{ id: 'toString', operation: 'log', options: { message: 'hi' } }], edges: [] },
    });
    expect((await ok('GET', `/api/v1/flows/${flow.id}`)).graph.nodes[0].id).toBe('toString');
  });
});

describe('POST /api/v1/folders (folder names)', () => {
  it('refuses a folder name no read can name, and lists the names it accepts', async () => {
    await refusesEach((name) => call('POST', '/api/v1/folders', { name }), ['body', 'name']);
    await refusesEach((name) => call('POST', '/api/v1/folders', { name: ` ${name} ` }), ['body', 'name']);
    await ok('POST', '/api/v1/folders', { name: 'toString' });
    expect((await ok('GET', '/api/v1/folders')).map((f: { name: string }) => f.name)).toEqual(['toString']);
  });
});

describe('POST /api/v1/transform-presets (preset keys)', () => {
  it('refuses a preset key no read can name, and lists the keys it accepts', async () => {
    await refusesEach(
      (key) => call('POST', '/api/v1/transform-presets', { key, name: 'x', dsl: 'w=64' }),
      ['body', 'key'],
    );
    await ok('POST', '/api/v1/transform-presets', { key: 'valueof', name: 'x', dsl: 'w=64' });
    expect((await ok('GET', '/api/v1/transform-presets')).map((p: { key: string }) => p.key)).toEqual(['valueof']);
  });
});

describe('POST /api/v1/pages (slugs)', () => {
  it('refuses a slug the delivery API can never serve, and delivers the slugs it accepts', async () => {
    await refusesEach((slug) => call('POST', '/api/v1/pages', { slug, title: 'x' }), ['body', 'slug']);
    const page = await ok('POST', '/api/v1/pages', { slug: 'blog/constructor', title: 'x', status: 'published' });
    expect((await call('GET', '/api/v1/deliver/page/main/blog/constructor', undefined, { as: null })).statusCode).toBe(
      200,
    );
    await refusesEach((slug) => call('PATCH', `/api/v1/pages/${page.id}`, { slug }), ['body', 'slug']);
  });
});

describe('POST /api/v1/sites (site ids)', () => {
  it('refuses a site id the delivery paths can never name, and serves the ids it accepts', async () => {
    await refusesEach((id) => call('POST', '/api/v1/sites', { id, name: 'x' }), ['body', 'id']);
    await ok('POST', '/api/v1/sites', { id: 'valueof', name: 'x' });
    const res = await call('GET', '/api/v1/deliver/page/valueof/home', undefined, { as: null });
    expect(res.statusCode, res.body).toBe(404);
    expect(firstError(res.body).code).not.toBe('VALIDATION_FAILED');
  });
});

describe('POST /api/v1/tm (entries keyed by their text)', () => {
  it('keeps an entry whose text names a prototype member under an id that reads back', async () => {
    const entry = await ok('POST', '/api/v1/tm', {
      sourceLang: 'en',
      targetLang: 'de',
      source: 'constructor',
      target: '__proto__',
    });
    const changed = await ok('PATCH', `/api/v1/tm/${entry.id}`, { target: 'Konstruktor' });
    expect(changed).toMatchObject({ id: entry.id, source: 'constructor', target: 'Konstruktor' });
  });
});
