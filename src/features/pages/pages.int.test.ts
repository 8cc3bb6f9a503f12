import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { createTestApp, type TestApp } from '../../../test/setup/app.ts';
import { createUser } from '../../../test/setup/users.ts';

let t: TestApp;
let admin: string;
const layout = {
  rows: [
    {
      columns: [
        {
          width: 12,
          blocks: [
            { type: 'text', text: 'Hello' },
            { type: 'item', collection: 'articles', itemId: 'a1' },
          ],
        },
      ],
    },
  ],
};
const call = (method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, payload?: unknown, site = 'main', as = admin) =>
  t.call({ method, url, as, site, ...(payload !== undefined ? { payload: payload as object } : {}) });
const create = async (slug: string, extra: object = {}, site = 'main') => {
  const res = await call('POST', '/api/v1/pages', { slug, title: `Page ${slug}`, ...extra }, site);
  expect(res.statusCode, res.body).toBe(201);
  return res.json().data as { id: string; slug: string; version: number };
};

beforeAll(async () => {
  t = await createTestApp();
  admin = await t.setup();
  const site = await t.call({
    method: 'POST',
    url: '/api/v1/sites',
    as: admin,
    payload: { id: 'second', name: 'Second' },
  });
  expect(site.statusCode).toBe(201);
});
afterAll(() => t.close());

describe('POST /api/v1/pages', () => {
  it('creates a draft page with its layout when asked, and reads it back', async () => {
    const page = await create('about/team', { layoutConfig: layout, status: 'draft' });
    expect(page).toMatchObject({ slug: 'about/team', title: 'Page about/team', status: 'draft', layoutConfig: layout });
    const res = await call('GET', `/api/v1/pages/${page.id}`);
    expect(res.json().data).toEqual(page);
  });

  it.each([
    ['an upper-case slug', { slug: 'About', title: 'x' }, ['body', 'slug']],
    ['a slug with a trailing dash', { slug: 'about-', title: 'x' }, ['body', 'slug']],
    ['a slug with a double separator', { slug: 'a//b', title: 'x' }, ['body', 'slug']],
    ['a slug of 201 characters', { slug: 'a'.repeat(201), title: 'x' }, ['body', 'slug']],
    ['no title', { slug: 'ok' }, ['body', 'title']],
    ['a title of 301 characters', { slug: 'ok', title: 'x'.repeat(301) }, ['body', 'title']],
    ['an unknown status', { slug: 'ok', title: 'x', status: 'live' }, ['body', 'status']],
    ['an unknown key', { slug: 'ok', title: 'x', body: 'y' }, ['body', 'body']],
    [
      'a column 13 wide',
      { slug: 'ok', title: 'x', layoutConfig: { rows: [{ columns: [{ width: 13, blocks: [] }] }] } },
      ['body', 'layoutConfig', 'rows', '0', 'columns', '0', 'width'],
    ],
    [
      'an unknown block type',
      { slug: 'ok', title: 'x', layoutConfig: { rows: [{ columns: [{ width: 6, blocks: [{ type: 'video' }] }] }] } },
      ['body', 'layoutConfig', 'rows', '0', 'columns', '0', 'blocks', '0', 'type'],
    ],
    [
      'an item block without an id',
      {
        slug: 'ok',
        title: 'x',
        layoutConfig: { rows: [{ columns: [{ width: 6, blocks: [{ type: 'item', collection: 'articles' }] }] }] },
      },
      ['body', 'layoutConfig', 'rows', '0', 'columns', '0', 'blocks', '0', 'itemId'],
    ],
    [
      '101 item blocks',
      {
        slug: 'ok',
        title: 'x',
        layoutConfig: {
          rows: [
            {
              columns: [
                {
                  width: 12,
                  blocks: Array.from({ length: 100 }, (_, i) => ({
                    type: 'item',
                    collection: 'articles',
                    itemId: `a${i}`,
                  })),
                },
              ],
            },
            { columns: [{ width: 12, blocks: [{ type: 'item', collection: 'articles', itemId: 'z' }] }] },
          ],
        },
      },
      ['body', 'layoutConfig', 'rows'],
    ],
    [
      '51 rows',
      {
        slug: 'ok',
        title: 'x',
        layoutConfig: { rows: Array.from({ length: 51 }, () => ({ columns: [{ width: 12, blocks: [] }] })) },
      },
      ['body', 'layoutConfig', 'rows'],
    ],
  ])('answers %s with 400 VALIDATION_FAILED and its path', async (_, payload, path) => {
    const res = await call('POST', '/api/v1/pages', payload);
    expect(res.statusCode).toBe(400);
    expect(res.json().errors.map((e: { code: string }) => e.code)).toContain('VALIDATION_FAILED');
    expect(res.json().errors.map((e: { path: string[] }) => e.path)).toContainEqual(path);
  });

  it('accepts a slug of exactly 200 characters', async () => {
    await create('b'.repeat(200));
  });

  it('answers a taken slug with 409 CONFLICT', async () => {
    await create('contact');
    const res = await call('POST', '/api/v1/pages', { slug: 'contact', title: 'Again' });
    expect(res.statusCode).toBe(409);
    expect(res.json().errors[0]).toMatchObject({ code: 'CONFLICT', path: ['slug'] });
  });

  it('lets exactly one of ten concurrent creates with one slug win', async () => {
    const res = await Promise.all(
      Array.from({ length: 10 }, (_, i) => call('POST', '/api/v1/pages', { slug: 'race', title: `Racer ${i}` })),
    );
    expect(res.map((r) => r.statusCode).sort()).toEqual([201, ...Array(9).fill(409)]);
    const list = await call('GET', '/api/v1/pages?limit=200');
    expect(list.json().data.filter((p: { slug: string }) => p.slug === 'race')).toHaveLength(1);
  });

  it('keeps writes to admins and editors; viewers read', async () => {
    const v = await createUser(t, 'page-viewer@example.com', 'Viewer-pass-1234!', { main: 'viewer' });
    const e = await createUser(t, 'page-editor@example.com', 'Editor-pass-1234!', { main: 'editor' });
    const denied = await call('POST', '/api/v1/pages', { slug: 'by-viewer', title: 'x' }, 'main', v);
    expect(denied.statusCode).toBe(403);
    expect(denied.json().errors[0].code).toBe('PERMISSION_DENIED');
    expect((await call('GET', '/api/v1/pages', undefined, 'main', v)).statusCode).toBe(200);
    expect((await call('POST', '/api/v1/pages', { slug: 'by-editor', title: 'x' }, 'main', e)).statusCode).toBe(201);
    expect((await t.call({ method: 'GET', url: '/api/v1/pages', site: 'main' })).statusCode).toBe(401);
  });

  it('asks the site access model: a rule on _pages grants exactly its action, on this site only', async () => {
    const post = async (url: string, payload: object) => (await call('POST', url, payload)).json().data;
    const role = await post('/api/v1/roles', { name: 'Page updater' });
    const policy = await post('/api/v1/policies', { name: 'Pages: update' });
    const rule = { collection: '_pages', action: 'update', fields: ['*'] };
    expect((await call('POST', `/api/v1/policies/${policy.id}/permissions`, rule)).statusCode).toBe(201);
    for (const refused of [
      { ...rule, action: 'share' },
      { ...rule, conditions: { created_by: { _eq: '$CURRENT_USER' } } },
      { ...rule, fields: ['title'] },
    ])
      expect((await call('POST', `/api/v1/policies/${policy.id}/permissions`, refused)).statusCode).toBe(400);
    await call('POST', `/api/v1/policies/${policy.id}/attach`, { role: role.id });
    const third = await t.call({
      method: 'POST',
      url: '/api/v1/sites',
      as: admin,
      payload: { id: 'third', name: 'Third' },
    });
    expect(third.statusCode, third.body).toBe(201);
    const u = await createUser(t, 'page-updater@example.com', 'Updater-pass-1234!', { main: role.id, third: 'viewer' });
    const page = await create('for-updater');
    const other = await create('third-site-page', {}, 'third');
    const patch = (id: string, site: string) => call('PATCH', `/api/v1/pages/${id}`, { title: 'Renamed' }, site, u);
    expect((await patch(page.id, 'main')).statusCode).toBe(200);
    expect((await call('POST', '/api/v1/pages', { slug: 'by-updater', title: 'x' }, 'main', u)).statusCode).toBe(403);
    expect((await call('DELETE', `/api/v1/pages/${page.id}`, undefined, 'main', u)).statusCode).toBe(403);
    expect((await patch(other.id, 'third')).statusCode).toBe(403);
    const me = (await call('GET', '/api/v1/permissions/me', undefined, 'main', u)).json().data;
    expect(JSON.stringify(me)).toContain('_pages');
  });
});

describe('PATCH and DELETE /api/v1/pages/:id', () => {
  it('renames a page, freeing its old slug and taking the new one', async () => {
    const page = await create('old-name');
    const res = await call('PATCH', `/api/v1/pages/${page.id}`, { slug: 'new-name', status: 'published' });
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toMatchObject({ slug: 'new-name', status: 'published', version: page.version + 1 });
    await create('old-name');
    const taken = await call('POST', '/api/v1/pages', { slug: 'new-name', title: 'x' });
    expect(taken.statusCode).toBe(409);
  });

  it('refuses a rename onto a taken slug with 409 and changes nothing', async () => {
    const a = await create('taken-a');
    await create('taken-b');
    const res = await call('PATCH', `/api/v1/pages/${a.id}`, { slug: 'taken-b', title: 'Changed' });
    expect(res.statusCode).toBe(409);
    expect((await call('GET', `/api/v1/pages/${a.id}`)).json().data).toMatchObject({
      slug: 'taken-a',
      title: 'Page taken-a',
    });
  });

  it('answers bad patches with 400 and their paths', async () => {
    const page = await create('patch-me');
    const bad = await call('PATCH', `/api/v1/pages/${page.id}`, { slug: 'Bad Slug', layoutConfig: { rows: 'x' } });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().errors.map((e: { path: string[] }) => e.path)).toEqual(
      expect.arrayContaining([
        ['body', 'slug'],
        ['body', 'layoutConfig', 'rows'],
      ]),
    );
    expect((await call('PATCH', `/api/v1/pages/${page.id}`, { title: '' })).statusCode).toBe(400);
  });

  it('deletes a page, freeing its slug; the page is then 404', async () => {
    const page = await create('short-lived');
    expect((await call('DELETE', `/api/v1/pages/${page.id}`)).statusCode).toBe(204);
    const gone = await call('GET', `/api/v1/pages/${page.id}`);
    expect(gone.statusCode).toBe(404);
    expect(gone.json().errors[0].code).toBe('NOT_FOUND');
    expect((await call('PATCH', `/api/v1/pages/${page.id}`, { title: 'x' })).statusCode).toBe(404);
    expect((await call('DELETE', `/api/v1/pages/${page.id}`)).statusCode).toBe(404);
    await create('short-lived');
  });
});

describe('GET /api/v1/pages', () => {
  it('pages through the site with status filter and totals', async () => {
    const all = (await call('GET', '/api/v1/pages?limit=200')).json();
    expect(all.meta).toMatchObject({ total: all.data.length, page: 1, pageSize: 200 });
    const published = (await call('GET', '/api/v1/pages?status=published')).json();
    expect(published.data.every((p: { status: string }) => p.status === 'published')).toBe(true);
    expect(published.meta.total).toBeGreaterThan(0);
    const second = (await call('GET', '/api/v1/pages?limit=2&page=2')).json();
    expect(second.data.map((p: { id: string }) => p.id)).toEqual(all.data.slice(2, 4).map((p: { id: string }) => p.id));
    expect((await call('GET', '/api/v1/pages?limit=0')).statusCode).toBe(400);
  });
});

describe('site isolation', () => {
  it('keeps each site to its own pages and slugs', async () => {
    const mine = await create('shared-slug');
    const theirs = await create('shared-slug', {}, 'second');
    expect(theirs.id).not.toBe(mine.id);
    expect((await call('GET', `/api/v1/pages/${mine.id}`, undefined, 'second')).statusCode).toBe(404);
    expect((await call('PATCH', `/api/v1/pages/${mine.id}`, { title: 'x' }, 'second')).statusCode).toBe(404);
    expect((await call('DELETE', `/api/v1/pages/${mine.id}`, undefined, 'second')).statusCode).toBe(404);
    const list = (await call('GET', '/api/v1/pages', undefined, 'second')).json();
    expect(list.data.map((p: { id: string }) => p.id)).toEqual([theirs.id]);
  });
});

describe('pages read model', () => {
  it('rebuilt from the log equals the live projection', async () => {
    const snapshot = async () =>
      (
        await sql<Record<string, unknown>>`select * from pages order by site_id, id`.execute(t.deps.database.owner)
      ).rows.map((r) => JSON.stringify(r));
    const live = await snapshot();
    expect(live.length).toBeGreaterThan(10);
    await t.deps.engine.rebuild('pages');
    expect(await snapshot()).toEqual(live);
  });
});
