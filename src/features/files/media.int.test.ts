import { request } from 'node:http';
import type { AddressInfo } from 'node:net';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/setup/app.ts';
import { createUser } from '../../../test/setup/users.ts';

let t: TestApp;
let admin: string;
const tokens = new Map<string, string>();
const ROLES = ['site_admin', 'editor', 'viewer', 'subscriber', 'public'] as const;
let png: Buffer;
let otherPng: Buffer;

beforeAll(async () => {
  t = await createTestApp();
  admin = await t.setup();
  for (const role of ROLES)
    tokens.set(role, await createUser(t, `${role}@media.test`, 'Media-pass-1618!x', { main: role }));
  const res = await t.call({
    method: 'POST',
    url: '/api/v1/sites',
    as: admin,
    payload: { id: 'other', name: 'Other' },
  });
  expect(res.statusCode).toBe(201);
  tokens.set('other', await createUser(t, 'other@media.test', 'Media-pass-1618!x', { other: 'site_admin' }));
  png = await sharp({ create: { width: 40, height: 30, channels: 3, background: '#c33' } })
    .png()
    .toBuffer();
  otherPng = await sharp({ create: { width: 8, height: 9, channels: 3, background: '#3c3' } })
    .png()
    .toBuffer();
});
afterAll(() => t.close());

const upload = (key: string, body: Buffer | string, opts: { as?: string; type?: string; site?: string } = {}) =>
  t.call({
    method: 'POST',
    url: `/api/v1/media/${key}`,
    as: opts.as ?? admin,
    site: opts.site ?? 'main',
    headers: { 'content-type': opts.type ?? 'image/png' },
    payload: body,
  });
const download = (key: string, as = admin, site = 'main', headers: Record<string, string> = {}) =>
  t.call({ method: 'GET', url: `/api/v1/media/${key}`, as, site, headers });
const objectsUnder = (prefix: string) => t.deps.storage.list(prefix);
const refusals = async () =>
  (
    await t.call({ method: 'GET', url: '/api/v1/audit?type=MediaUploadRefused&limit=200', as: admin, site: 'main' })
  ).json().data as { stream: string; data: { code: string; key: string } }[];

describe('raw media by key', () => {
  it('stores bytes that pass the guard, serves them as an attachment, replaces and deletes them', async () => {
    const created = await upload('logo.png', png);
    expect(created.statusCode, created.body).toBe(201);
    const rec = created.json().data;
    expect(rec).toMatchObject({
      key: 'logo.png',
      size: png.length,
      mimeType: 'image/png',
      extension: 'png',
      width: 40,
      height: 30,
    });
    expect(rec.sha256).toMatch(/^[0-9a-f]{64}$/);

    const got = await download('logo.png');
    expect(got.statusCode).toBe(200);
    expect(got.rawPayload.equals(png)).toBe(true);
    expect(got.headers).toMatchObject({
      'content-type': 'image/png',
      'content-disposition': `attachment; filename="logo.png"; filename*=UTF-8''logo.png`,
      'x-content-type-options': 'nosniff',
      'content-security-policy': "default-src 'none'; sandbox",
      etag: `"${rec.sha256}"`,
    });
    expect((await download('logo.png', admin, 'main', { 'if-none-match': `"${rec.sha256}"` })).statusCode).toBe(304);

    const replaced = await upload('logo.png', otherPng);
    expect(replaced.statusCode).toBe(200);
    expect(replaced.json().data).toMatchObject({ width: 8, height: 9, createdAt: rec.createdAt });
    expect((await download('logo.png')).rawPayload.equals(otherPng)).toBe(true);
    // The replaced bytes are gone; only the current object is stored.
    expect(await objectsUnder('sites/main/media/logo.png/')).toEqual([
      `sites/main/media/logo.png/${replaced.json().data.sha256}`,
    ]);

    const del = await t.call({ method: 'DELETE', url: '/api/v1/media/logo.png', as: admin, site: 'main' });
    expect(del.statusCode).toBe(204);
    const gone = await download('logo.png');
    expect(gone.statusCode).toBe(404);
    expect(gone.json().errors[0]).toMatchObject({ code: 'NOT_FOUND', path: ['key'] });
    expect(await objectsUnder('sites/main/media/logo.png/')).toEqual([]);
    expect(
      (await t.call({ method: 'DELETE', url: '/api/v1/media/logo.png', as: admin, site: 'main' })).statusCode,
    ).toBe(404);
  });

  it('keeps an SVG a download that runs nothing, and records every change as an event', async () => {
    const svg = '<svg xmlns="http://www.w3.org/2000/svg" width="4" height="4"><rect width="4" height="4"/></svg>';
    expect((await upload('shape.svg', svg, { type: 'image/svg+xml' })).statusCode).toBe(201);
    const got = await download('shape.svg');
    expect(got.headers['content-type']).toBe('image/svg+xml');
    expect(got.headers['content-security-policy']).toBe("default-src 'none'; sandbox");
    const audit = await t.call({
      method: 'GET',
      url: '/api/v1/audit?stream=main/media/shape.svg',
      as: admin,
      site: 'main',
    });
    expect(audit.json().data.map((e: { type: string }) => e.type)).toEqual(['MediaStored']);
  });

  it('refuses hostile bytes with the guard code, stores nothing, and audits the refusal', async () => {
    const pe = Buffer.alloc(256);
    pe.write('MZ', 0, 'latin1');
    pe.writeUInt32LE(128, 0x3c);
    pe.write('PE\0\0', 128, 'latin1');
    const cases: [string, Buffer | string, string, number, string][] = [
      ['evil.png', pe, 'image/png', 422, 'UPLOAD_EXECUTABLE'],
      [
        'evil.svg',
        '<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>',
        'image/svg+xml',
        422,
        'UPLOAD_ACTIVE_CONTENT',
      ],
      ['photo.png', png, 'image/jpeg', 415, 'UPLOAD_TYPE_MISMATCH'],
      ['tool.exe', pe, 'application/x-msdownload', 415, 'UPLOAD_TYPE_NOT_ALLOWED'],
      [
        'trailer.png',
        Buffer.concat([png, Buffer.from('<?php system($_GET["c"]); ?>')]),
        'image/png',
        422,
        'UPLOAD_EMBEDDED_PAYLOAD',
      ],
    ];
    for (const [key, body, type, status, code] of cases) {
      const res = await upload(key, body, { type });
      expect(res.statusCode, `${key}: ${res.body}`).toBe(status);
      expect(res.json().errors[0].code, key).toBe(code);
      expect((await download(key)).statusCode, key).toBe(404);
      expect(await objectsUnder(`sites/main/media/${key}/`), key).toEqual([]);
    }
    const audited = await refusals();
    for (const [key, , , , code] of cases) expect(audited.find((e) => e.data.key === key)?.data.code, key).toBe(code);
  });

  it('counts the cap on the bytes as they arrive: a chunked body past it is cut off with 413', async () => {
    const put = await t.call({
      method: 'PUT',
      url: '/api/v1/uploads/config',
      as: admin,
      site: 'main',
      payload: { maxBytes: 4096 },
    });
    expect(put.statusCode, put.body).toBe(200);
    try {
      await t.app.listen({ port: 0, host: '127.0.0.1' });
      const { port } = t.app.server.address() as AddressInfo;
      const big = Buffer.alloc(4097, 0x41);
      const answer = await new Promise<{ status: number; body: string }>((resolve, reject) => {
        const req = request(
          {
            host: '127.0.0.1',
            port,
            method: 'POST',
            path: '/api/v1/media/big.txt',
            headers: {
              authorization: `Bearer ${admin}`,
              'x-svc-site': 'main',
              'content-type': 'text/plain',
              'transfer-encoding': 'chunked',
            },
          },
          (res) => {
            let body = '';
            res.on('data', (c: Buffer) => (body += c.toString()));
            res.on('end', () => resolve({ status: res.statusCode!, body }));
          },
        );
        req.on('error', reject);
        // No Content-Length: only the bytes tell.
        for (let i = 0; i < big.length; i += 1000) req.write(big.subarray(i, i + 1000));
        req.end();
      });
      expect(answer.status).toBe(413);
      expect(JSON.parse(answer.body).errors[0]).toMatchObject({ code: 'UPLOAD_TOO_LARGE' });
      expect(await objectsUnder('sites/main/media/big.txt/')).toEqual([]);
      // A Content-Length over the cap is refused before the body is read.
      const declared = await upload('declared.txt', Buffer.alloc(5000, 0x42), { type: 'text/plain' });
      expect(declared.statusCode).toBe(413);
      expect((await upload('fits.txt', Buffer.alloc(4096, 0x43), { type: 'text/plain' })).statusCode).toBe(201);
    } finally {
      await t.call({ method: 'PUT', url: '/api/v1/uploads/config', as: admin, site: 'main', payload: {} });
    }
  });
});

describe('media permissions', () => {
  it('follows media:create|read|update|delete of the policy engine for every system role', async () => {
    expect((await upload('matrix.png', png)).statusCode).toBe(201);
    const can: Record<string, [number, number, number]> = {
      // upload a new key, read, delete
      site_admin: [201, 200, 204],
      editor: [201, 200, 204],
      viewer: [403, 200, 403],
      subscriber: [403, 403, 403],
      public: [403, 403, 403],
    };
    for (const role of ROLES) {
      const as = tokens.get(role)!;
      const [c, r, d] = can[role]!;
      expect((await upload(`by-${role}.png`, png, { as })).statusCode, `${role} create`).toBe(c);
      expect((await download('matrix.png', as)).statusCode, `${role} read`).toBe(r);
      const key = d === 204 ? `by-${role}.png` : 'matrix.png';
      expect(
        (await t.call({ method: 'DELETE', url: `/api/v1/media/${key}`, as, site: 'main' })).statusCode,
        `${role} delete`,
      ).toBe(d);
    }
  });

  it('refuses the public role even when a policy grants it media:create', async () => {
    const ok = async (url: string, payload: object) => {
      const res = await t.call({ method: 'POST', url, as: admin, site: 'main', payload });
      expect(res.statusCode, res.body).toBeLessThan(300);
      return res.json().data;
    };
    const policy = await ok('/api/v1/policies', { name: 'public uploads' });
    await ok(`/api/v1/policies/${policy.id}/permissions`, { collection: 'media', action: 'create' });
    await ok(`/api/v1/policies/${policy.id}/attach`, { role: 'public' });
    const res = await upload('public.png', png, { as: tokens.get('public') });
    expect(res.statusCode).toBe(403);
    expect(res.json().errors[0]).toMatchObject({
      code: 'PERMISSION_DENIED',
      message: 'the public role cannot upload files',
    });
    expect((await refusals()).some((e) => e.data.key === 'public.png')).toBe(false);
  });

  it("never shows or changes another site's media, and asks anonymous callers to authenticate", async () => {
    expect((await upload('secret.png', png)).statusCode).toBe(201);
    const other = tokens.get('other')!;
    // As a member of its own site only: another site is refused outright.
    expect((await download('secret.png', other, 'main')).statusCode).toBe(403);
    expect((await upload('secret.png', otherPng, { as: other, site: 'main' })).statusCode).toBe(403);
    // In its own site the key is simply not there.
    expect((await download('secret.png', other, 'other')).statusCode).toBe(404);
    expect(
      (await t.call({ method: 'DELETE', url: '/api/v1/media/secret.png', as: other, site: 'other' })).statusCode,
    ).toBe(404);
    expect((await upload('secret.png', otherPng, { as: other, site: 'other' })).statusCode).toBe(201);
    expect((await download('secret.png')).rawPayload.equals(png)).toBe(true);
    for (const method of ['GET', 'POST', 'DELETE'] as const) {
      const res = await t.call({
        method,
        url: '/api/v1/media/secret.png',
        site: 'main',
        headers: { 'content-type': 'image/png' },
        payload: method === 'POST' ? png : undefined,
      });
      expect(res.statusCode, method).toBe(401);
    }
  });

  it('answers hostile keys with 400 and the parameter path', async () => {
    for (const key of ['noext', '.hidden.png', '%2e%2e%2fx.png', 'a%00b.png', '__proto__', 'x.png%20']) {
      const res = await t.call({ method: 'GET', url: `/api/v1/media/${key}`, as: admin, site: 'main' });
      expect(res.statusCode, key).toBe(400);
      expect(res.json().errors[0].path, key).toEqual(['params', 'key']);
    }
    // Past the router's parameter limit the answer is 414, in the envelope.
    const long = await t.call({ method: 'GET', url: `/api/v1/media/${'a'.repeat(300)}.png`, as: admin, site: 'main' });
    expect(long.statusCode).toBe(414);
    expect(long.json().errors[0].code).toBeDefined();
  });
});

describe('upload policy', () => {
  it('shows the policy in effect to any member and lets only site admins set it', async () => {
    const seen = await t.call({ method: 'GET', url: '/api/v1/uploads/config', as: tokens.get('viewer'), site: 'main' });
    expect(seen.statusCode).toBe(200);
    const d = seen.json().data;
    expect(d.maxBytes).toBeGreaterThan(0);
    expect(d.allowedMimeTypes).toContain('image/png');
    expect(d.catalogue.find((c: { mimeType: string }) => c.mimeType === 'image/png').extensions).toContain('png');
    expect(
      (
        await t.call({
          method: 'PUT',
          url: '/api/v1/uploads/config',
          as: tokens.get('editor'),
          site: 'main',
          payload: { maxBytes: 10 },
        })
      ).statusCode,
    ).toBe(403);
    const set = await t.call({
      method: 'PUT',
      url: '/api/v1/uploads/config',
      as: tokens.get('site_admin'),
      site: 'main',
      payload: { maxBytes: 100_000, allowedMimeTypes: ['image/png'] },
    });
    expect(set.json().data).toMatchObject({
      maxBytes: 100_000,
      allowedMimeTypes: ['image/png'],
      allowedExtensions: ['png'],
    });
    const svg = '<svg xmlns="http://www.w3.org/2000/svg"/>';
    expect((await upload('now-refused.svg', svg, { type: 'image/svg+xml' })).json().errors[0].code).toBe(
      'UPLOAD_TYPE_NOT_ALLOWED',
    );
    await t.call({ method: 'PUT', url: '/api/v1/uploads/config', as: admin, site: 'main', payload: {} });
    expect((await upload('now-allowed.svg', svg, { type: 'image/svg+xml' })).statusCode).toBe(201);
  });

  it('answers bad policies with 400 and the path, and keeps the policy of the other site apart', async () => {
    for (const [payload, path] of [
      [{ maxBytes: 0 }, ['body', 'maxBytes']],
      [{ maxBytes: 6 * 1024 ** 3 }, ['body', 'maxBytes']],
      [{ allowedMimeTypes: ['application/x-unknown'] }, ['body', 'allowedMimeTypes', '0']],
      [{ allowedExtensions: ['nope'] }, ['body', 'allowedExtensions', '0']],
      [JSON.parse('{"__proto__": {"maxBytes": 1}}'), ['body']],
    ] as const) {
      const res = await t.call({ method: 'PUT', url: '/api/v1/uploads/config', as: admin, site: 'main', payload });
      expect(res.statusCode, JSON.stringify(payload)).toBe(400);
      expect(res.json().errors[0].path.slice(0, path.length), JSON.stringify(payload)).toEqual(path);
    }
    await t.call({
      method: 'PUT',
      url: '/api/v1/uploads/config',
      as: tokens.get('other'),
      site: 'other',
      payload: { maxBytes: 77 },
    });
    expect(
      (await t.call({ method: 'GET', url: '/api/v1/uploads/config', as: admin, site: 'main' })).json().data.maxBytes,
    ).not.toBe(77);
  });
});
