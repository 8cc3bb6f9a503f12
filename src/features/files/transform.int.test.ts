import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/setup/app.ts';
import { createUser } from '../../../test/setup/users.ts';

let t: TestApp;
let admin: string;
let viewer: string;
let photo: Buffer;

beforeAll(async () => {
  t = await createTestApp();
  admin = await t.setup();
  viewer = await createUser(t, 'viewer@transform.test', 'Transform-pass-1618!', { main: 'viewer' });
  // 400 × 200: left half red, right half blue, so a crop shows where it was cut.
  const half = { width: 200, height: 200, channels: 3 as const };
  photo = await sharp({ create: { ...half, width: 400, background: '#0000ff' } })
    .composite([
      {
        input: await sharp({ create: { ...half, background: '#ff0000' } })
          .png()
          .toBuffer(),
        left: 0,
        top: 0,
      },
    ])
    .jpeg({ quality: 95 })
    .toBuffer();
  const res = await t.call({
    method: 'POST',
    url: '/api/v1/media/photo.jpg',
    as: admin,
    site: 'main',
    headers: { 'content-type': 'image/jpeg' },
    payload: photo,
  });
  expect(res.statusCode, res.body).toBe(201);
});
afterAll(() => t.close());

const get = (url: string, headers: Record<string, string> = {}, as = admin) =>
  t.call({ method: 'GET', url, as, site: 'main', headers });

/** Follows the transform's redirect and decodes the derivative. */
async function transformed(query: string, headers: Record<string, string> = {}) {
  const redirect = await get(`/api/v1/media/photo.jpg?${query}`, headers);
  expect(redirect.statusCode, redirect.body).toBe(302);
  const location = redirect.headers.location as string;
  const res = await get(location, headers);
  expect(res.statusCode).toBe(200);
  const meta = await sharp(res.rawPayload).metadata();
  return { location, res, meta, redirect };
}

const pixel = async (image: Buffer, x: number, y: number) => {
  const { data, info } = await sharp(image).raw().toBuffer({ resolveWithObject: true });
  const i = (y * info.width + x) * info.channels;
  return [data[i]!, data[i + 1]!, data[i + 2]!];
};

describe('image transforms of media', () => {
  it('resizes, converts and serves the derivative from an immutable address', async () => {
    const { location, res, meta } = await transformed('width=100&format=webp&quality=70');
    expect(location).toMatch(/^\/api\/v1\/media\/photo\.jpg\/derivatives\/[0-9a-f]{64}\/[0-9a-f]{32}\.webp$/);
    expect(meta).toMatchObject({ format: 'webp', width: 100, height: 50 });
    expect(res.headers).toMatchObject({
      'content-type': 'image/webp',
      'cache-control': 'private, max-age=31536000, immutable',
      'x-content-type-options': 'nosniff',
    });
    expect((await get(location, { 'if-none-match': res.headers.etag as string })).statusCode).toBe(304);
    // The same transform in another spelling is the same derivative, made once.
    const again = await transformed('quality=70&format=webp&width=100&fit=cover');
    expect(again.location).toBe(location);
  });

  it('fits in each of the five ways', async () => {
    const box = 'width=100&height=100&format=png';
    expect((await transformed(`${box}&fit=cover`)).meta).toMatchObject({ width: 100, height: 100 });
    expect((await transformed(`${box}&fit=fill`)).meta).toMatchObject({ width: 100, height: 100 });
    expect((await transformed(`${box}&fit=contain`)).meta).toMatchObject({ width: 100, height: 100 });
    expect((await transformed(`${box}&fit=inside`)).meta).toMatchObject({ width: 100, height: 50 });
    expect((await transformed(`${box}&fit=outside`)).meta).toMatchObject({ width: 200, height: 100 });
  });

  it('crops around the focal point', async () => {
    const left = await transformed('width=100&height=100&fit=cover&format=png&focal=0,0.5');
    const right = await transformed('width=100&height=100&fit=cover&format=png&focal=1,0.5');
    const [r1, , b1] = await pixel(left.res.rawPayload, 50, 50);
    const [r2, , b2] = await pixel(right.res.rawPayload, 50, 50);
    expect(r1).toBeGreaterThan(200);
    expect(b1).toBeLessThan(60);
    expect(b2).toBeGreaterThan(200);
    expect(r2).toBeLessThan(60);
  });

  it('picks the format from Accept with format=auto, and says so with Vary', async () => {
    const avif = await transformed('width=40&format=auto', { accept: 'image/avif,image/webp,*/*' });
    expect(avif.meta.format).toBe('heif');
    expect(avif.redirect.headers.vary).toBe('Accept, Origin');
    const webp = await transformed('width=40&format=auto', { accept: 'image/webp,*/*' });
    expect(webp.meta.format).toBe('webp');
    const plain = await transformed('width=40&format=auto', { accept: '*/*' });
    expect(plain.meta.format).toBe('jpeg');
  });

  it('applies a saved preset, with the query overriding it', async () => {
    const created = await t.call({
      method: 'POST',
      url: '/api/v1/transform-presets',
      as: admin,
      site: 'main',
      payload: { key: 'thumb', name: 'Thumbnail', dsl: 'format=png , w=64,h=64,fit=cover' },
    });
    expect(created.statusCode, created.body).toBe(201);
    expect(created.json().data).toMatchObject({
      key: 'thumb',
      name: 'Thumbnail',
      dsl: 'w=64,h=64,fit=cover,format=png',
    });
    expect((await transformed('preset=thumb')).meta).toMatchObject({ width: 64, height: 64, format: 'png' });
    expect((await transformed('preset=thumb&width=32')).meta).toMatchObject({ width: 32, height: 64 });
    const list = await get('/api/v1/transform-presets', {}, viewer);
    expect(list.json()).toMatchObject({ data: [{ key: 'thumb' }], meta: { total: 1 } });
    const id = created.json().data.id;
    const patched = await t.call({
      method: 'PATCH',
      url: `/api/v1/transform-presets/${id}`,
      as: admin,
      site: 'main',
      payload: { dsl: 'w=16' },
    });
    expect(patched.json().data.dsl).toBe('w=16');
    expect((await transformed('preset=thumb')).meta).toMatchObject({ width: 16, format: 'jpeg' });
    expect(
      (await t.call({ method: 'DELETE', url: `/api/v1/transform-presets/${id}`, as: admin, site: 'main' })).statusCode,
    ).toBe(204);
    const gone = await get('/api/v1/media/photo.jpg?preset=thumb');
    expect(gone.statusCode).toBe(400);
    expect(gone.json().errors[0].path).toEqual(['query', 'preset']);
  });

  it('makes new derivatives for new bytes and removes those of the old ones', async () => {
    const before = await transformed('width=50');
    const other = await sharp({ create: { width: 10, height: 10, channels: 3, background: '#00ff00' } })
      .jpeg()
      .toBuffer();
    const put = await t.call({
      method: 'POST',
      url: '/api/v1/media/photo.jpg',
      as: admin,
      site: 'main',
      headers: { 'content-type': 'image/jpeg' },
      payload: other,
    });
    expect(put.statusCode).toBe(200);
    expect((await get(before.location)).statusCode).toBe(404);
    const oldSha = before.location.split('/')[6]!;
    expect(await t.deps.storage.list(`sites/main/media/photo.jpg/derivatives/${oldSha}/`)).toEqual([]);
    const after = await transformed('width=50');
    expect(after.location).not.toBe(before.location);
    expect(after.meta).toMatchObject({ width: 50, height: 50 });
  });
});
