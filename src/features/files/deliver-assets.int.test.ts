import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/setup/app.ts';
import { uploadTo } from '../../../test/support/upload-address.ts';

let t: TestApp;
let admin: string;
let photo: Buffer;

beforeAll(async () => {
  t = await createTestApp();
  admin = await t.setup();
  photo = await sharp({ create: { width: 60, height: 40, channels: 3, background: '#aa3300' } })
    .jpeg()
    .toBuffer();
  for (const [url, body] of [
    ['/api/v1/sites', { id: 'other', name: 'Other' }],
    ['/api/v1/collections', { name: 'posts' }],
    ['/api/v1/fields/posts', { field: 'cover', type: 'string' }],
    ['/api/v1/relations', { kind: 'm2o', collection: 'posts', field: 'cover', target: 'files' }],
  ] as const)
    expect((await call('POST', url, body)).statusCode, url).toBe(201);
});
afterAll(() => t.close());

function call(method: 'GET' | 'POST' | 'PATCH', url: string, payload?: unknown, as: string | undefined = admin) {
  return t.call({ method, url, as, site: 'main', ...(payload === undefined ? {} : { payload: payload as object }) });
}

async function file(name: string) {
  const { address } = await uploadTo(t, photo, { filename: name, mimeType: 'image/jpeg' }, { as: admin });
  const res = await call('POST', '/api/v1/files', { uploadId: address.uploadId });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().data.id as string;
}

describe('public delivery of files', () => {
  it('resolves file references of delivered items to public addresses that serve while published content uses them', async () => {
    const cover = await file('cover.jpg');
    const unused = await file('unused.jpg');
    expect((await call('POST', '/api/v1/items/posts', { id: 'p1', cover, status: 'published' })).statusCode).toBe(201);
    const layoutConfig = {
      rows: [{ columns: [{ width: 12, blocks: [{ type: 'item', collection: 'posts', itemId: 'p1' }] }] }],
    };
    expect((await call('POST', '/api/v1/pages', { slug: 'home', title: 'Home', layoutConfig })).statusCode).toBe(201);

    const page = await t.call({ method: 'GET', url: '/api/v1/deliver/page/main/home' });
    const delivered = page.json().data.items['posts/p1'];
    expect(delivered.cover).toEqual({ id: cover, url: `/api/v1/deliver/assets/main/${cover}` });

    const original = await t.call({ method: 'GET', url: delivered.cover.url });
    expect(original.statusCode).toBe(200);
    expect(original.rawPayload.equals(photo)).toBe(true);
    expect(original.headers).toMatchObject({
      'cache-control': 'public, max-age=60',
      'x-content-type-options': 'nosniff',
    });
    const redirect = await t.call({ method: 'GET', url: `${delivered.cover.url}?width=30&format=png` });
    expect(redirect.statusCode).toBe(302);
    const derivative = await t.call({ method: 'GET', url: redirect.headers.location as string });
    expect(derivative.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(await sharp(derivative.rawPayload).metadata()).toMatchObject({ width: 30, height: 20 });

    // Not used by published content, another site, a made-up id: one answer.
    for (const url of [
      `/api/v1/deliver/assets/main/${unused}`,
      `/api/v1/deliver/assets/other/${cover}`,
      '/api/v1/deliver/assets/main/nope',
      `/api/v1/deliver/assets/NOT_A_SITE/${cover}`,
    ]) {
      const res = await t.call({ method: 'GET', url });
      expect(res.statusCode, url).toBe(404);
      expect(res.json().errors[0].code, url).toBe('NOT_FOUND');
    }
    // Once the post is a draft, its cover is no longer public.
    expect((await call('PATCH', '/api/v1/items/posts/p1', { status: 'draft' })).statusCode).toBe(200);
    expect((await t.call({ method: 'GET', url: delivered.cover.url })).statusCode).toBe(404);
    expect((await t.call({ method: 'GET', url: redirect.headers.location as string })).statusCode).toBe(404);
  });
});
