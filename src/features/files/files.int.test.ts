import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/setup/app.ts';
import { createUser } from '../../../test/setup/users.ts';
import { uploadTo } from '../../../test/support/upload-address.ts';

let t: TestApp;
let admin: string;
let viewer: string;
let outsider: string;
let photo: Buffer;

beforeAll(async () => {
  t = await createTestApp();
  admin = await t.setup();
  viewer = await createUser(t, 'viewer@files.test', 'Files-pass-1618!x', { main: 'viewer' });
  expect((await call('POST', '/api/v1/sites', { id: 'other', name: 'Other' })).statusCode).toBe(201);
  outsider = await createUser(t, 'outsider@files.test', 'Files-pass-1618!x', { other: 'site_admin' });
  photo = await sharp({ create: { width: 64, height: 48, channels: 3, background: '#3366cc' } })
    .jpeg()
    .toBuffer();
});
afterAll(() => t.close());

function call(
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE' | 'PUT',
  url: string,
  payload?: unknown,
  as = admin,
  site = 'main',
) {
  return t.call({ method, url, as, site, ...(payload === undefined ? {} : { payload: payload as object }) });
}

async function upload(bytes: Buffer, filename: string, mimeType: string, as = admin, site = 'main') {
  const { address, status, body } = await uploadTo(t, bytes, { filename, mimeType }, { as, site });
  return { address, put: { statusCode: status, body } };
}

async function register(bytes: Buffer, filename: string, mimeType: string, values: object = {}) {
  const { address } = await upload(bytes, filename, mimeType);
  const res = await call('POST', '/api/v1/files', { uploadId: address.uploadId, ...values });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().data as Record<string, unknown> & { id: string };
}

describe('file records', () => {
  it('registers an upload as a file with its values from the bytes, and reads, lists, filters and changes it', async () => {
    const file = await register(photo, 'Beach photo.jpg', 'image/jpeg', { title: 'Beach', tags: ['summer'] });
    expect(file).toMatchObject({
      filename: 'Beach photo.jpg',
      type: 'image/jpeg',
      filesize: photo.length,
      width: 64,
      height: 48,
      title: 'Beach',
      tags: ['summer'],
    });
    expect(file.sha256).toMatch(/^[0-9a-f]{64}$/);
    expect((await call('GET', `/api/v1/files/${file.id}`)).json().data).toMatchObject({ id: file.id, title: 'Beach' });
    await register(Buffer.from('a,b\n1,2\n'), 'data.csv', 'text/csv', { title: 'Numbers' });
    const images = await call(
      'GET',
      '/api/v1/files?filter[type][_starts_with]=image/&fields=id,title,width&meta=total_count',
    );
    expect(images.json()).toMatchObject({ data: [{ id: file.id, title: 'Beach', width: 64 }] });
    const sorted = await call('GET', '/api/v1/files?sort=title&fields=title');
    expect(sorted.json().data.map((f: { title: string }) => f.title)).toEqual(['Beach', 'Numbers']);

    const patched = await call('PATCH', `/api/v1/files/${file.id}`, {
      title: 'Beach at dawn',
      focal_point: { x: 0.2, y: 0.8 },
    });
    expect(patched.statusCode, patched.body).toBe(200);
    expect(patched.json().data).toMatchObject({
      title: 'Beach at dawn',
      focal_point: { x: 0.2, y: 0.8 },
      filesize: photo.length,
    });
    // What came from the bytes cannot be written.
    const sneaky = await call('PATCH', `/api/v1/files/${file.id}`, { filesize: 1 });
    expect(sneaky.statusCode).toBe(400);
    expect(sneaky.json().errors[0]).toMatchObject({ code: 'VALIDATION_FAILED', path: ['body', 'filesize'] });
  });

  it('keeps the history of a file record and reads it as it was', async () => {
    const file = await register(photo, 'history.jpg', 'image/jpeg', { title: 'First' });
    const first = (await call('GET', `/api/v1/files/${file.id}`)).json().data;
    await new Promise((r) => setTimeout(r, 15));
    await call('PATCH', `/api/v1/files/${file.id}`, { title: 'Second' });
    const then = await call('GET', `/api/v1/files/${file.id}?asOf=${encodeURIComponent(first.updated_at)}`);
    expect(then.statusCode, then.body).toBe(200);
    expect(then.json().data.title).toBe('First');
    const revisions = await call('GET', `/api/v1/files/${file.id}/revisions`);
    expect(revisions.statusCode, revisions.body).toBe(200);
    expect(revisions.json().data.map((r: { data: { title: string } }) => r.data.title)).toEqual(['Second', 'First']);
    expect(revisions.json().meta.total).toBe(2);
    expect((await call('GET', `/api/v1/files/${file.id}/revisions`, undefined, outsider, 'other')).statusCode).toBe(
      404,
    );
    const audit = await call('GET', `/api/v1/audit?stream=main/item/files/${file.id}`);
    expect(audit.json().data.map((e: { type: string }) => e.type)).toEqual(['ItemUpdated', 'ItemCreated']);
  });

  it('serves the bytes and transforms images through /assets, around the stored focal point', async () => {
    const file = await register(photo, 'asset.jpg', 'image/jpeg');
    const got = await call('GET', `/api/v1/assets/${file.id}`);
    expect(got.statusCode).toBe(200);
    expect(got.rawPayload.equals(photo)).toBe(true);
    expect(got.headers['content-disposition']).toBe(`attachment; filename="asset.jpg"; filename*=UTF-8''asset.jpg`);
    const redirect = await call('GET', `/api/v1/assets/${file.id}?width=32&format=png`);
    expect(redirect.statusCode).toBe(302);
    const derivative = await call('GET', redirect.headers.location as string);
    expect(await sharp(derivative.rawPayload).metadata()).toMatchObject({ width: 32, height: 24, format: 'png' });
    // The stored focal point is the default: a cover crop names it in the derivative's parameters.
    const plain = (await call('GET', `/api/v1/assets/${file.id}?width=10&height=10`)).headers.location;
    await call('PATCH', `/api/v1/files/${file.id}`, { focal_point: { x: 1, y: 0 } });
    const focused = (await call('GET', `/api/v1/assets/${file.id}?width=10&height=10`)).headers.location;
    expect(focused).not.toBe(plain);
  });

  it('expands file references of items like any relation', async () => {
    const file = await register(photo, 'cover.jpg', 'image/jpeg', { title: 'Cover' });
    expect((await call('POST', '/api/v1/collections', { name: 'posts' })).statusCode).toBe(201);
    expect((await call('POST', '/api/v1/fields/posts', { field: 'cover', type: 'string' })).statusCode).toBe(201);
    const rel = await call('POST', '/api/v1/relations', {
      kind: 'm2o',
      collection: 'posts',
      field: 'cover',
      target: 'files',
    });
    expect(rel.statusCode, rel.body).toBe(201);
    expect((await call('POST', '/api/v1/items/posts', { id: 'p1', cover: file.id })).statusCode).toBe(201);
    const post = await call('GET', '/api/v1/items/posts/p1?fields=id,cover.width,cover.title');
    expect(post.json().data).toEqual({ id: 'p1', cover: { id: file.id, width: 64, title: 'Cover' } });
    // A viewer reads files through media:read.
    expect(
      (await call('GET', '/api/v1/items/posts/p1?fields=cover.title', undefined, viewer)).json().data,
    ).toMatchObject({
      cover: { id: file.id, title: 'Cover' },
    });
    // A restrict relation holds the file back.
    await call('PATCH', `/api/v1/relations/${rel.json().data.id}`, { onDelete: 'restrict' });
    const blocked = await call('DELETE', `/api/v1/files/${file.id}`);
    expect(blocked.statusCode, blocked.body).toBe(409);
    expect(blocked.json().errors[0].code).toBe('DEPENDENT_RECORDS_EXIST');
  });

  it('keeps the system collection out of the item and schema routes', async () => {
    expect((await call('GET', '/api/v1/items/files')).statusCode).toBe(404);
    expect((await call('POST', '/api/v1/items/files', { filename: 'x' })).statusCode).toBe(404);
    expect((await call('POST', '/api/v1/collections', { name: 'files' })).statusCode).toBe(409);
    const field = await call('POST', '/api/v1/fields/files', { field: 'extra', type: 'string' });
    expect(field.statusCode).toBe(409);
    expect(field.json().errors[0].message).toMatch(/system collection/);
    expect((await call('DELETE', '/api/v1/collections/files')).statusCode).toBe(409);
  });

  it('deletes a file record softly', async () => {
    const file = await register(photo, 'gone.jpg', 'image/jpeg');
    expect((await call('DELETE', `/api/v1/files/${file.id}`)).statusCode).toBe(204);
    expect((await call('GET', `/api/v1/files/${file.id}`)).statusCode).toBe(404);
    expect((await call('GET', `/api/v1/assets/${file.id}`)).statusCode).toBe(404);
  });
});

describe('upload addresses', () => {
  it('uses an address once, and only for its own bytes', async () => {
    const { address, put } = await upload(photo, 'once.jpg', 'image/jpeg');
    if (!address.url.startsWith('/')) return; // S3 addresses are S3's to enforce (s3-storage.int.test.ts)
    expect(put.statusCode, put.body).toBe(200);
    const again = await t.call({
      method: 'PUT',
      url: address.url,
      site: 'main',
      headers: address.headers,
      payload: photo,
    });
    expect(again.statusCode).toBe(409);
    const forged = await t.call({
      method: 'PUT',
      url: address.url.replace(/signature=[^&]+/, 'signature=AAAA'),
      site: 'main',
      headers: address.headers,
      payload: photo,
    });
    expect(forged.statusCode).toBe(401);
    // The address names its site: another site's header does not carry it over.
    const { address: fresh } = await (async () => {
      const r = await call('POST', '/api/v1/files/presigned-url', {
        filename: 'x.jpg',
        mimeType: 'image/jpeg',
        size: photo.length,
      });
      return { address: r.json().data };
    })();
    const elsewhere = await t.call({
      method: 'PUT',
      url: fresh.url,
      site: 'other',
      headers: fresh.headers,
      payload: photo,
    });
    expect(elsewhere.statusCode).toBe(401);
    const short = await t.call({
      method: 'PUT',
      url: fresh.url,
      site: 'main',
      headers: { 'content-type': 'image/jpeg' },
      payload: photo.subarray(0, 100),
    });
    expect(short.statusCode).toBe(400);
    // More bytes than signed: refused from the Content-Length, and the connection is not kept to drain the rest.
    const { address: big } = await (async () => {
      const r = await call('POST', '/api/v1/files/presigned-url', {
        filename: 'y.jpg',
        mimeType: 'image/jpeg',
        size: 10,
      });
      return { address: r.json().data };
    })();
    const long = await t.call({
      method: 'PUT',
      url: big.url,
      site: 'main',
      headers: { 'content-type': 'image/jpeg' },
      payload: photo,
    });
    expect(long.statusCode).toBe(413);
    expect(long.json().errors[0].code).toBe('UPLOAD_TOO_LARGE');
    expect(long.headers.connection).toBe('close');
  });

  it('refuses hostile bytes at the address and records it; registration then finds nothing', async () => {
    const elf = Buffer.concat([Buffer.from([0x7f, 0x45, 0x4c, 0x46, 2, 1, 1]), Buffer.alloc(200)]);
    const { address, put } = await upload(elf, 'tool.jpg', 'image/jpeg');
    if (address.url.startsWith('/')) {
      expect(put.statusCode).toBe(422);
      expect(JSON.parse(put.body).errors[0].code).toBe('UPLOAD_EXECUTABLE');
    }
    const reg = await call('POST', '/api/v1/files', { uploadId: address.uploadId });
    expect(reg.statusCode).toBe(address.url.startsWith('/') ? 409 : 422);
    const audit = await call('GET', `/api/v1/audit?stream=main/upload/${address.uploadId}`);
    expect(audit.json().data.map((e: { type: string }) => e.type)).toContain('UploadRefused');
    expect(await t.deps.storage.list(`sites/main/uploads/${address.uploadId}/`)).toEqual([]);
  });

  it('refuses a type or size outside the policy before handing out an address', async () => {
    const exe = await call('POST', '/api/v1/files/presigned-url', {
      filename: 'a.exe',
      mimeType: 'application/x-msdownload',
      size: 10,
    });
    expect(exe.statusCode).toBe(415);
    const huge = await call('POST', '/api/v1/files/presigned-url', {
      filename: 'a.png',
      mimeType: 'image/png',
      size: 10 * 1024 ** 3,
    });
    expect(huge.statusCode).toBe(413);
  });

  it("never registers another person's or another site's upload, and keeps files per site", async () => {
    const { address } = await upload(photo, 'mine.jpg', 'image/jpeg');
    expect((await call('POST', '/api/v1/files', { uploadId: address.uploadId }, viewer)).statusCode).toBe(403);
    expect((await call('POST', '/api/v1/files', { uploadId: address.uploadId }, outsider, 'other')).statusCode).toBe(
      404,
    );
    const file = await register(photo, 'site.jpg', 'image/jpeg');
    for (const url of [`/api/v1/files/${file.id}`, `/api/v1/assets/${file.id}`])
      expect((await call('GET', url, undefined, outsider, 'other')).statusCode, url).toBe(404);
    expect((await call('GET', `/api/v1/files/${file.id}`, undefined, outsider, 'main')).statusCode).toBe(403);
    expect((await call('PATCH', `/api/v1/files/${file.id}`, { title: 'x' }, outsider, 'other')).statusCode).toBe(404);
    expect((await call('DELETE', `/api/v1/files/${file.id}`, undefined, outsider, 'other')).statusCode).toBe(404);
    expect((await call('GET', '/api/v1/files', undefined, outsider, 'other')).json().data).toEqual([]);
    expect((await t.call({ method: 'GET', url: '/api/v1/files', site: 'main' })).statusCode).toBe(401);
    // Viewers read files and their bytes but change nothing.
    expect((await call('GET', `/api/v1/assets/${file.id}`, undefined, viewer)).statusCode).toBe(200);
    expect((await call('PATCH', `/api/v1/files/${file.id}`, { title: 'x' }, viewer)).statusCode).toBe(403);
  });
});
