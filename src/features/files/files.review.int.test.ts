import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/setup/app.ts';
import { createUser } from '../../../test/setup/users.ts';
import { uploadTo } from '../../../test/support/upload-address.ts';

/** Holes an attacker's review of the files slice found, each held shut. */
let t: TestApp;
let admin: string;
let photo: Buffer;

beforeAll(async () => {
  t = await createTestApp({ env: { SVC_TRANSFORM_MAX_DERIVATIVES: '3' } });
  admin = await t.setup();
  photo = await sharp({ create: { width: 40, height: 30, channels: 3, background: '#884422' } })
    .jpeg()
    .toBuffer();
});
afterAll(() => t.close());

type Method = 'GET' | 'POST' | 'PATCH' | 'DELETE' | 'PUT';
const call = (method: Method, url: string, payload?: unknown, as = admin) =>
  t.call({ method, url, as, site: 'main', ...(payload === undefined ? {} : { payload: payload as object }) });
const ok = async (method: Method, url: string, payload?: unknown) => {
  const res = await call(method, url, payload);
  expect(res.statusCode, res.body).toBeLessThan(300);
  return res.json().data;
};
const media = (key: string, body: Buffer, type: string, as = admin) =>
  t.call({
    method: 'POST',
    url: `/api/v1/media/${key}`,
    as,
    site: 'main',
    headers: { 'content-type': type },
    payload: body,
  });

async function uploadAddress(bytes: Buffer, filename: string, mimeType: string, as = admin) {
  const { address, status } = await uploadTo(t, bytes, { filename, mimeType }, { as });
  expect(status).toBe(200);
  return address.uploadId;
}

/** A user holding a custom role whose one policy has these media rules. */
async function userWithMediaRules(email: string, rules: object[]) {
  const role = await ok('POST', '/api/v1/roles', { name: email });
  const policy = await ok('POST', '/api/v1/policies', { name: email });
  for (const rule of rules) await ok('POST', `/api/v1/policies/${policy.id}/permissions`, rule);
  await ok('POST', `/api/v1/policies/${policy.id}/attach`, { role: role.id });
  return createUser(t, email, 'Review-pass-1618!x', { main: role.id });
}

describe('files review', () => {
  it('sizes transforms of EXIF-turned photos as they are shown', async () => {
    // Stored 20 × 1000, shown 1000 × 20 (orientation 6: a quarter turn).
    const tall = await sharp({ create: { width: 20, height: 1000, channels: 3, background: '#226688' } })
      .jpeg()
      .withMetadata({ orientation: 6 })
      .toBuffer();
    expect((await media('turned.jpg', tall, 'image/jpeg')).statusCode).toBe(201);
    const huge = await call('GET', '/api/v1/media/turned.jpg?height=1000&format=png');
    expect(huge.statusCode).toBe(400);
    expect(huge.json().errors[0].path).toEqual(['query', 'fit']);
    const small = await call('GET', '/api/v1/media/turned.jpg?width=100&format=png');
    expect(small.statusCode).toBe(302);
    const made = await call('GET', small.headers.location as string);
    expect(await sharp(made.rawPayload).metadata()).toMatchObject({ width: 100, height: 2 });
  });

  it('refuses raw media and presets to a media rule with conditions (there are no rows to hold them against)', async () => {
    expect((await media('admins.png', await sharp(photo).png().toBuffer(), 'image/png')).statusCode).toBe(201);
    await ok('POST', '/api/v1/transform-presets', { key: 'admins', name: 'Admins', dsl: 'w=10' });
    const own = { created_by: { _eq: '$CURRENT_USER' } };
    const user = await userWithMediaRules('conditional@review.test', [
      { collection: 'media', action: 'read', conditions: own },
      { collection: 'media', action: 'update', conditions: own },
      { collection: 'media', action: 'delete', conditions: own },
    ]);
    for (const [method, url] of [
      ['GET', '/api/v1/media/admins.png'],
      ['DELETE', '/api/v1/media/admins.png'],
      ['GET', '/api/v1/transform-presets'],
    ] as const) {
      const res = await call(method, url, undefined, user);
      expect(res.statusCode, `${method} ${url}`).toBe(403);
      expect(res.json().errors[0].message).toMatch(/conditions/);
    }
    expect((await media('admins.png', photo, 'image/jpeg', user)).statusCode).toBe(403);
    expect((await call('GET', '/api/v1/media/admins.png')).statusCode).toBe(200);
  });

  it("holds a registration to the create rule's validation with the values from the bytes", async () => {
    const user = await userWithMediaRules('images-only@review.test', [
      { collection: 'media', action: 'create', validation: { type: { _starts_with: 'image/' } } },
    ]);
    const csv = await uploadAddress(Buffer.from('a,b\n1,2\n'), 'data.csv', 'text/csv', user);
    const refused = await call('POST', '/api/v1/files', { uploadId: csv }, user);
    expect(refused.statusCode).toBe(400);
    expect(refused.json().errors[0].extensions.reason).toBe('permission_validation');
    const jpg = await uploadAddress(photo, 'fine.jpg', 'image/jpeg', user);
    expect((await call('POST', '/api/v1/files', { uploadId: jpg }, user)).statusCode).toBe(201);
  });

  it('makes one file of one upload, however many registrations race', async () => {
    const uploadId = await uploadAddress(photo, 'race.jpg', 'image/jpeg');
    const answers = await Promise.all(
      [1, 2, 3].map(async () => (await call('POST', '/api/v1/files', { uploadId })).statusCode),
    );
    expect(answers.filter((s) => s === 201)).toHaveLength(1);
    const made = await call('GET', '/api/v1/files?filter[filename][_eq]=race.jpg&meta=total_count');
    expect(made.json().data).toHaveLength(1);
  });

  it('caps the derivatives ad-hoc parameters make of one image; presets and made sizes still answer', async () => {
    expect((await media('capped.jpg', photo, 'image/jpeg')).statusCode).toBe(201);
    for (const w of [10, 11, 12])
      expect((await call('GET', `/api/v1/media/capped.jpg?width=${w}`)).statusCode).toBe(302);
    const fourth = await call('GET', '/api/v1/media/capped.jpg?width=13');
    expect(fourth.statusCode).toBe(400);
    expect(fourth.json().errors[0].message).toMatch(/derivatives already/);
    expect((await call('GET', '/api/v1/media/capped.jpg?width=11')).statusCode).toBe(302);
    await ok('POST', '/api/v1/transform-presets', { key: 'tiny', name: 'Tiny', dsl: 'w=5' });
    expect((await call('GET', '/api/v1/media/capped.jpg?preset=tiny')).statusCode).toBe(302);
  });

  it('reads a stored upload policy key by key: one bad part does not drop the others', async () => {
    await ok('PATCH', '/api/v1/site', {
      settings: { upload_policy: { maxBytes: 1000, allowedMimeTypes: ['image/png', 'image/x-icon'] } },
    });
    const config = (await call('GET', '/api/v1/uploads/config')).json().data;
    expect(config).toMatchObject({ maxBytes: 1000, allowedMimeTypes: ['image/png', 'image/x-icon'] });
    const svg = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>');
    expect((await media('policy.svg', svg, 'image/svg+xml')).json().errors[0].code).toBe('UPLOAD_TYPE_NOT_ALLOWED');
    await ok('PUT', '/api/v1/uploads/config', {});
  });

  it('lets relations point at files (m2o) and nothing else', async () => {
    await ok('POST', '/api/v1/collections', { name: 'labels' });
    await ok('POST', '/api/v1/fields/labels', { field: 'file', type: 'string' });
    await ok('POST', '/api/v1/fields/labels', { field: 'files', type: 'json' });
    for (const body of [
      { kind: 'm2o', collection: 'files', field: 'folder', target: 'labels' },
      { kind: 'o2m', collection: 'labels', field: 'files', target: 'files', targetField: 'folder' },
      { kind: 'm2m', collection: 'labels', field: 'files', target: 'labels', junctionCollection: 'files' },
    ]) {
      const res = await call('POST', '/api/v1/relations', body);
      expect(res.statusCode, JSON.stringify(body)).toBe(409);
    }
    expect(
      (await call('POST', '/api/v1/relations', { kind: 'm2o', collection: 'labels', field: 'file', target: 'files' }))
        .statusCode,
    ).toBe(201);
  });

  it('checks media rules against the fields of file records', async () => {
    const policy = await ok('POST', '/api/v1/policies', { name: 'bad media rule' });
    const res = await call('POST', `/api/v1/policies/${policy.id}/permissions`, {
      collection: 'media',
      action: 'read',
      conditions: { nosuchfield: { _eq: 1 } },
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().errors[0].path[0]).toBe('conditions');
  });
  it("does not name a file's bytes after a filename the caller's rule hides", async () => {
    const uploadId = await uploadAddress(photo, 'Secret merger plan.jpg', 'image/jpeg');
    const file = await ok('POST', '/api/v1/files', { uploadId, title: 'Q3' });
    const user = await userWithMediaRules('limited@review.test', [
      { collection: 'media', action: 'read', fields: ['id', 'title'] },
    ]);
    const record = await call('GET', `/api/v1/files/${file.id}`, undefined, user);
    expect(record.statusCode).toBe(200);
    expect(record.json().data).toMatchObject({ id: file.id, title: 'Q3' });
    expect(record.json().data).not.toHaveProperty('filename');
    const got = await call('GET', `/api/v1/assets/${file.id}`, undefined, user);
    expect(got.statusCode).toBe(200);
    expect(got.rawPayload.equals(photo)).toBe(true);
    expect(got.headers['content-disposition']).toBe(
      `attachment; filename="${file.id}.jpg"; filename*=UTF-8''${file.id}.jpg`,
    );
    const whole = await call('GET', `/api/v1/assets/${file.id}`);
    expect(whole.headers['content-disposition']).toContain('Secret%20merger%20plan.jpg');
  });
});
