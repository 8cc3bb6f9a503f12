import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/setup/app.ts';
import { uploadTo } from '../../../test/support/upload-address.ts';
import { REGISTRATION_GRACE_MS, sweepUploads } from './upload-sweep.ts';

let t: TestApp;
let admin: string;
let photo: Buffer;

beforeAll(async () => {
  t = await createTestApp();
  admin = await t.setup();
  photo = await sharp({ create: { width: 8, height: 8, channels: 3, background: '#123456' } })
    .jpeg()
    .toBuffer();
});
afterAll(() => t.close());

const later = (ms: number) => new Date(Date.now() + 15 * 60 * 1000 + ms);

describe('upload sweep', () => {
  it('removes the bytes of an upload left unregistered past its grace, records it, and keeps registered files', async () => {
    const { address: left, status } = await uploadTo(
      t,
      photo,
      { filename: 'left.jpg', mimeType: 'image/jpeg' },
      { as: admin },
    );
    expect(status).toBe(200);
    const { address: kept } = await uploadTo(t, photo, { filename: 'kept.jpg', mimeType: 'image/jpeg' }, { as: admin });
    const file = await t.call({
      method: 'POST',
      url: '/api/v1/files',
      as: admin,
      site: 'main',
      payload: { uploadId: kept.uploadId },
    });
    expect(file.statusCode).toBe(201);
    const folder = `sites/main/uploads/${left.uploadId}/`;
    expect(await t.deps.storage.list(folder)).toHaveLength(1);

    // Within the grace nothing goes.
    await sweepUploads(t.deps, later(REGISTRATION_GRACE_MS - 60_000));
    expect(await t.deps.storage.list(folder)).toHaveLength(1);

    expect(await sweepUploads(t.deps, later(REGISTRATION_GRACE_MS + 60_000))).toBeGreaterThanOrEqual(1);
    expect(await t.deps.storage.list(folder)).toEqual([]);
    const audit = await t.call({
      method: 'GET',
      url: `/api/v1/audit?stream=main/upload/${left.uploadId}`,
      as: admin,
      site: 'main',
    });
    // (On S3 the bytes went to the bucket directly: no UploadReceived there.)
    const types = audit.json().data.map((e: { type: string }) => e.type);
    expect([types[0], types.at(-1)]).toEqual(['UploadExpired', 'UploadAuthorized']);
    const register = await t.call({
      method: 'POST',
      url: '/api/v1/files',
      as: admin,
      site: 'main',
      payload: { uploadId: left.uploadId },
    });
    expect(register.statusCode).toBe(409);
    // The registered file keeps its bytes.
    const asset = await t.call({
      method: 'GET',
      url: `/api/v1/assets/${file.json().data.id}`,
      as: admin,
      site: 'main',
    });
    expect(asset.statusCode).toBe(200);
  });
});
