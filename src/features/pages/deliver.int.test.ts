import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/setup/app.ts';
import { createUser } from '../../../test/setup/users.ts';

let t: TestApp;
let admin: string;
let home: { id: string };
const call = (method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, payload?: unknown, site = 'main', as = admin) =>
  t.call({ method, url, as, site, ...(payload !== undefined ? { payload: payload as object } : {}) });
const ok = async (method: 'POST' | 'PATCH', url: string, payload: unknown, site = 'main') => {
  const res = await call(method, url, payload, site);
  expect(res.statusCode, res.body).toBeLessThan(300);
  return res.json().data as { id: string };
};
const deliver = (path: string, headers: Record<string, string> = {}, remoteAddress?: string) =>
  t.call({ method: 'GET', url: `/api/v1/deliver/page/${path}`, headers, ...(remoteAddress ? { remoteAddress } : {}) });
const block = (itemId: string, fields?: string[]) => ({
  type: 'item',
  collection: 'articles',
  itemId,
  ...(fields ? { fields } : {}),
});

beforeAll(async () => {
  t = await createTestApp();
  admin = await t.setup();
  await ok('POST', '/api/v1/sites', { id: 'second', name: 'Second' });
  await ok('POST', '/api/v1/collections', { name: 'articles' });
  await ok('POST', '/api/v1/fields/articles', { field: 'title', type: 'string' });
  await ok('POST', '/api/v1/fields/articles', { field: 'body', type: 'text' });
  for (const [id, status] of [
    ['pub1', 'published'],
    ['pub2', 'published'],
    ['draft1', 'draft'],
  ])
    await ok('POST', '/api/v1/items/articles', { id, title: `Title ${id}`, body: `Body ${id}`, status });
  home = await ok('POST', '/api/v1/pages', {
    slug: 'home',
    title: 'Home',
    status: 'published',
    layoutConfig: {
      rows: [
        {
          columns: [
            { width: 8, blocks: [block('pub1', ['title']), { type: 'text', text: 'Welcome' }] },
            { width: 4, blocks: [block('pub2')] },
          ],
        },
        {
          columns: [
            {
              width: 12,
              blocks: [block('draft1'), block('missing'), { type: 'item', collection: 'nowhere', itemId: 'x' }],
            },
          ],
        },
      ],
    },
  });
});
afterAll(() => t.close());

describe('GET /api/v1/deliver/page/:site_id/:slug', () => {
  it('delivers a published page with its published items resolved in one answer, and nulls for the rest', async () => {
    const res = await deliver('main/home');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.headers['cache-control']).toBe('public, max-age=60');
    expect(res.headers['x-svc-cache']).toBe('miss');
    const { page, items } = res.json().data;
    expect(page).toMatchObject({ id: home.id, slug: 'home', title: 'Home' });
    expect(page.layoutConfig.rows).toHaveLength(2);
    expect(items['articles/pub1']).toEqual({ id: 'pub1', title: 'Title pub1' });
    expect(items['articles/pub2']).toMatchObject({
      id: 'pub2',
      title: 'Title pub2',
      body: 'Body pub2',
      status: 'published',
    });
    expect(items['articles/draft1']).toBeNull();
    expect(items['articles/missing']).toBeNull();
    expect(items['nowhere/x']).toBeNull();
    expect(Object.keys(items)).toHaveLength(5);
    const again = await deliver('main/home');
    expect(again.headers['x-svc-cache']).toBe('hit');
    expect(again.body).toBe(res.body);
    expect(again.headers.etag).toBe(res.headers.etag);
  });

  it('answers If-None-Match with the current ETag with 304, and a stale one with the page', async () => {
    const first = await deliver('main/home');
    const etag = first.headers.etag as string;
    expect(etag).toMatch(/^"[A-Za-z0-9_-]+"$/);
    const same = await deliver('main/home', { 'if-none-match': etag });
    expect(same.statusCode).toBe(304);
    expect(same.body).toBe('');
    expect(same.headers.etag).toBe(etag);
    expect((await deliver('main/home', { 'if-none-match': `W/${etag}` })).statusCode).toBe(304);
    expect((await deliver('main/home', { 'if-none-match': '"stale"' })).statusCode).toBe(200);
  });

  it('shows an item change at once: a published draft appears, an unpublished item turns null', async () => {
    const before = await deliver('main/home');
    await ok('PATCH', '/api/v1/items/articles/draft1', { status: 'published' });
    await ok('PATCH', '/api/v1/items/articles/pub2', { status: 'draft' });
    const after = await deliver('main/home');
    expect(after.headers['x-svc-cache']).toBe('miss');
    expect(after.headers.etag).not.toBe(before.headers.etag);
    expect(after.json().data.items['articles/draft1']).toMatchObject({ id: 'draft1', title: 'Title draft1' });
    expect(after.json().data.items['articles/pub2']).toBeNull();
    expect((await deliver('main/home', { 'if-none-match': before.headers.etag as string })).statusCode).toBe(200);
  });

  it('shows a page change at once', async () => {
    await deliver('main/home');
    await ok('PATCH', `/api/v1/pages/${home.id}`, { title: 'Home, renamed' });
    expect((await deliver('main/home')).json().data.page.title).toBe('Home, renamed');
  });

  it.each([
    ['an unknown site', 'nowhere/home'],
    ['a malformed site id', 'Not_A_Site/home'],
    ['an unknown slug', 'main/no-such-page'],
    ['a malformed slug', 'main/Bad%20Slug'],
    ["another site's page", 'second/home'],
  ])('answers %s with 404 NOT_FOUND', async (_, path) => {
    const res = await deliver(path);
    expect(res.statusCode).toBe(404);
    expect(res.json().errors[0].code).toBe('NOT_FOUND');
  });

  it('does not deliver a draft page, and delivers it as soon as it is published', async () => {
    const draft = await ok('POST', '/api/v1/pages', { slug: 'coming/soon', title: 'Soon', status: 'draft' });
    expect((await deliver('main/coming/soon')).statusCode).toBe(404);
    expect((await deliver('main/coming/soon')).headers['x-svc-cache']).toBe('negative');
    await ok('PATCH', `/api/v1/pages/${draft.id}`, { status: 'published' });
    const res = await deliver('main/coming/soon');
    expect(res.statusCode).toBe(200);
    expect(res.json().data.page.slug).toBe('coming/soon');
  });
});

describe('negative cache', () => {
  it('keeps answering an unknown slug from the cache until a page takes it, then delivers at once', async () => {
    const first = await deliver('main/later');
    expect(first.statusCode).toBe(404);
    expect(first.headers['x-svc-cache']).toBe('miss');
    const cached = await deliver('main/later');
    expect(cached.statusCode).toBe(404);
    expect(cached.headers['x-svc-cache']).toBe('negative');
    await ok('POST', '/api/v1/pages', { slug: 'later', title: 'Later', status: 'published' });
    const now = await deliver('main/later');
    expect(now.statusCode).toBe(200);
    expect(now.json().data.page.title).toBe('Later');
  });

  it('clears the marker of a slug a page is renamed to, and forgets the old slug', async () => {
    const page = await ok('POST', '/api/v1/pages', { slug: 'before', title: 'Moving', status: 'published' });
    expect((await deliver('main/before')).statusCode).toBe(200);
    await deliver('main/after');
    expect((await deliver('main/after')).headers['x-svc-cache']).toBe('negative');
    await ok('PATCH', `/api/v1/pages/${page.id}`, { slug: 'after' });
    expect((await deliver('main/after')).statusCode).toBe(200);
    expect((await deliver('main/before')).statusCode).toBe(404);
  });

  it('forgets a deleted page at once', async () => {
    const page = await ok('POST', '/api/v1/pages', { slug: 'doomed', title: 'Doomed', status: 'published' });
    expect((await deliver('main/doomed')).statusCode).toBe(200);
    expect((await call('DELETE', `/api/v1/pages/${page.id}`)).statusCode).toBe(204);
    expect((await deliver('main/doomed')).statusCode).toBe(404);
  });

  it('keeps markers per site', async () => {
    await deliver('second/twin');
    expect((await deliver('second/twin')).headers['x-svc-cache']).toBe('negative');
    await ok('POST', '/api/v1/pages', { slug: 'twin', title: 'Main twin', status: 'published' });
    expect((await deliver('second/twin')).headers['x-svc-cache']).toBe('negative');
    await ok('POST', '/api/v1/pages', { slug: 'twin', title: 'Second twin', status: 'published' }, 'second');
    expect((await deliver('second/twin')).json().data.page.title).toBe('Second twin');
  });
});

describe('POST /api/v1/utils/cache/purge', () => {
  const purge = (payload: unknown, as = admin, site = 'main') =>
    t.call({ method: 'POST', url: '/api/v1/utils/cache/purge', as, site, payload: payload as object });

  it.each([
    ['a tag of another site', { tags: ['site:second'] }, ['body', 'tags', '0']],
    ['a tag without the site', { tags: [`page:${'x'}`] }, ['body', 'tags', '0']],
    ['an unknown tag naming the site', { tags: ['page:main:p', 'bogus:main:x'] }, ['body', 'tags', '1']],
    ['the site id as a mere substring', { keys: ['deliver:mainland:home'] }, ['body', 'keys', '0']],
    ['a key without a slug', { keys: ['deliver:main'] }, ['body', 'keys', '0']],
    ['a key of another kind', { keys: ['main:home'] }, ['body', 'keys', '0']],
    ['a non-string', { tags: [1] }, ['body', 'tags', '0']],
  ])('answers %s with 400 VALIDATION_FAILED naming the element', async (_, payload, path) => {
    const res = await purge(payload);
    expect(res.statusCode).toBe(400);
    expect(res.json().errors[0]).toMatchObject({ code: 'VALIDATION_FAILED', path });
  });

  it('is for administrators', async () => {
    const editor = await createUser(t, 'purge-editor@example.com', 'Editor-pass-1234!', { main: 'editor' });
    expect((await purge({ tags: ['site:main'] }, editor)).statusCode).toBe(403);
    expect(
      (await t.call({ method: 'POST', url: '/api/v1/utils/cache/purge', site: 'main', payload: {} })).statusCode,
    ).toBe(401);
  });

  it('purges a delivered page by page tag, item tag and key, and negative markers by key', async () => {
    const etag = (await deliver('main/home')).headers.etag;
    expect((await deliver('main/home')).headers['x-svc-cache']).toBe('hit');
    expect((await purge({ tags: [`page:main:${home.id}`] })).json().data).toEqual({ purged: 1 });
    const fresh = await deliver('main/home');
    expect(fresh.headers['x-svc-cache']).toBe('miss');
    expect(fresh.headers.etag).toBe(etag);
    expect((await purge({ tags: ['item:main:articles/pub1'] })).json().data).toEqual({ purged: 1 });
    expect((await purge({ tags: ['item:main:articles/pub1'] })).json().data).toEqual({ purged: 0 });
    await deliver('main/home');
    expect((await purge({ keys: ['deliver:main:home'] })).json().data).toEqual({ purged: 1 });
    expect((await deliver('main/home')).headers['x-svc-cache']).toBe('miss');
    await deliver('main/ghost');
    expect((await deliver('main/ghost')).headers['x-svc-cache']).toBe('negative');
    expect((await purge({ keys: ['deliver:main:ghost'] })).json().data).toEqual({ purged: 1 });
    expect((await deliver('main/ghost')).headers['x-svc-cache']).toBe('miss');
  });

  it('purges everything of the site, and nothing of another', async () => {
    await purge({ tags: ['site:main'] });
    await deliver('main/home');
    await deliver('main/later');
    await deliver('main/ghost-2');
    await deliver('second/twin');
    const res = await purge({ tags: ['site:main'], keys: [] });
    expect(res.json().data).toEqual({ purged: 3 });
    expect((await deliver('main/home')).headers['x-svc-cache']).toBe('miss');
    expect((await deliver('main/ghost-2')).headers['x-svc-cache']).toBe('miss');
    expect((await deliver('second/twin')).headers['x-svc-cache']).toBe('hit');
  });
});

describe('with the negative cache and the delivery throttle off (0)', () => {
  beforeAll(() => t.restart({ SVC_NEGATIVE_CACHE_TTL: '0', SVC_DELIVER_RATE_LIMIT: '0' }));

  it('asks the database for an unknown slug every time, and delivers a new page at once', async () => {
    for (let i = 0; i < 3; i++) {
      const res = await deliver('main/uncached');
      expect(res.statusCode).toBe(404);
      expect(res.headers['x-svc-cache']).toBe('miss');
      expect(res.headers['x-ratelimit-limit']).toBeUndefined();
    }
    await ok('POST', '/api/v1/pages', { slug: 'uncached', title: 'Uncached', status: 'published' });
    expect((await deliver('main/uncached')).statusCode).toBe(200);
  });
});

describe('delivery throttle', () => {
  beforeAll(() => t.restart({ SVC_DELIVER_RATE_LIMIT: '2' }));

  it('answers the third request of a client within a minute with 429 RATE_LIMITED and the limit headers', async () => {
    const ip = '10.9.8.7';
    const first = await deliver('main/home', {}, ip);
    expect(first.statusCode).toBe(200);
    expect(first.headers['x-ratelimit-limit']).toBe('2');
    expect(first.headers['x-ratelimit-remaining']).toBe('1');
    expect((await deliver('main/no-such-page', {}, ip)).statusCode).toBe(404);
    const limited = await deliver('main/home', {}, ip);
    expect(limited.statusCode).toBe(429);
    expect(limited.json().errors[0].code).toBe('RATE_LIMITED');
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    expect(limited.headers['x-ratelimit-limit']).toBe('2');
    expect(limited.headers['x-ratelimit-remaining']).toBe('0');
    expect(Number(limited.headers['x-ratelimit-reset'])).toBeGreaterThan(0);
    expect((await deliver('main/home', {}, '10.9.8.6')).statusCode).toBe(200);
  });
});

describe('personal values in delivery', () => {
  it('never delivers a personal field, even when a block names it', async () => {
    await ok('POST', '/api/v1/collections', { name: 'testimonials', subject: { from: 'item' } });
    await ok('POST', '/api/v1/fields/testimonials', { field: 'quote', type: 'text' });
    await ok('POST', '/api/v1/fields/testimonials', { field: 'customer', type: 'string', personal: true });
    await ok('POST', '/api/v1/items/testimonials', {
      id: 'q1',
      quote: 'Great service',
      customer: 'Jane Personal-Doe',
      status: 'published',
    });
    const blocks = [
      { type: 'item', collection: 'testimonials', itemId: 'q1' },
      { type: 'item', collection: 'testimonials', itemId: 'q1', fields: ['quote', 'customer'] },
    ];
    await ok('POST', '/api/v1/pages', {
      slug: 'praise',
      title: 'Praise',
      status: 'published',
      layoutConfig: { rows: [{ columns: [{ width: 12, blocks }] }] },
    });
    // An address of its own: the tests above spend the public rate limit of the default one.
    const res = await deliver('main/praise', {}, '203.0.113.77');
    expect(res.statusCode, res.body).toBe(200);
    const item = res.json().data.items['testimonials/q1'];
    expect(item).toMatchObject({ id: 'q1', quote: 'Great service' });
    expect(item).not.toHaveProperty('customer');
    expect(res.body).not.toContain('personal:');
  });
});
