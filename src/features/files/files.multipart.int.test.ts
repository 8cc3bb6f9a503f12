import { readdir } from 'node:fs/promises';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/setup/app.ts';
import { createUser } from '../../../test/setup/users.ts';
import { multipartBody, type FormPart } from '../../../test/support/multipart.ts';

let t: TestApp;
let admin: string;
let viewer: string;
let outsider: string;
let photo: Buffer;
let png: Buffer;

beforeAll(async () => {
  t = await createTestApp();
  admin = await t.setup();
  viewer = await createUser(t, 'viewer@multipart.test', 'Files-pass-1618!x', { main: 'viewer' });
  const site = await t.call({ method: 'POST', url: '/api/v1/sites', as: admin, payload: { id: 'other', name: 'O' } });
  expect(site.statusCode).toBe(201);
  outsider = await createUser(t, 'outsider@multipart.test', 'Files-pass-1618!x', { other: 'site_admin' });
  photo = await sharp({ create: { width: 40, height: 30, channels: 3, background: '#3366cc' } })
    .jpeg()
    .toBuffer();
  png = await sharp({ create: { width: 8, height: 8, channels: 3, background: '#cc6633' } })
    .png()
    .toBuffer();
});
afterAll(() => t.close());

const file = (filename: string, type: string, data: Buffer): FormPart => ({ name: 'file', filename, type, data });

function send(parts: FormPart[] | Buffer, opts: { as?: string; site?: string; headers?: Record<string, string> } = {}) {
  const body = Buffer.isBuffer(parts) ? { payload: parts, headers: opts.headers ?? {} } : multipartBody(parts);
  return t.call({
    method: 'POST',
    url: '/api/v1/files',
    as: opts.as ?? admin,
    site: opts.site ?? 'main',
    payload: body.payload,
    headers: body.headers,
  });
}

/** What a refused request must leave as it was: records, stored bytes, temp files; and the refusals recorded. */
async function snapshot(site = 'main') {
  const list = await t.call({ method: 'GET', url: '/api/v1/files?limit=200&fields=id', as: admin, site });
  const refusals = await t.call({ method: 'GET', url: '/api/v1/audit?type=UploadRefused&limit=200', as: admin, site });
  const temp = await readdir(t.deps.config.SVC_UPLOAD_TMP_DIR!).catch(() => []);
  return {
    records: (list.json().data as unknown[]).length,
    stored: (await t.deps.storage.list(`sites/${site}/files/`)).length,
    temp: temp.length,
    refusals: refusals.json().data as { data: { code: string; filename: string; bytesRead: number } }[],
  };
}

/** Sends a request that must be refused with this status and code, store nothing, and record one refusal. */
async function expectRefused(
  parts: FormPart[] | Buffer,
  status: number,
  code: string,
  headers?: Record<string, string>,
) {
  const before = await snapshot();
  const res = await send(parts, headers ? { headers } : {});
  expect(res.statusCode, res.body).toBe(status);
  expect(res.json().errors[0].code).toBe(code);
  const after = await snapshot();
  expect({ records: after.records, stored: after.stored, temp: after.temp }).toEqual({
    records: before.records,
    stored: before.stored,
    temp: 0,
  });
  expect(after.refusals.length).toBe(before.refusals.length + 1);
  expect(after.refusals[0]!.data.code).toBe(code);
  return res.json().errors[0] as { path: string[]; extensions: Record<string, unknown> };
}

describe('POST /api/v1/files (multipart/form-data)', () => {
  it('stores a file part with the record fields and answers the record', async () => {
    const res = await send([
      { name: 'title', value: 'Beach' },
      { name: 'tags', value: 'summer' },
      { name: 'tags', value: 'sea' },
      { name: 'focal_point', value: '{"x":0.25,"y":0.75}' },
      file('beach.jpg', 'image/jpeg', photo),
      { name: 'description', value: 'after the file too' },
    ]);
    expect(res.statusCode, res.body).toBe(201);
    const record = res.json().data;
    expect(record).toMatchObject({
      filename: 'beach.jpg',
      type: 'image/jpeg',
      filesize: photo.length,
      width: 40,
      height: 30,
      title: 'Beach',
      description: 'after the file too',
      tags: ['summer', 'sea'],
      focal_point: { x: 0.25, y: 0.75 },
    });
    expect(res.json().meta.revisionId).toEqual(expect.any(String));
    const bytes = await t.call({ method: 'GET', url: `/api/v1/assets/${record.id}`, as: admin, site: 'main' });
    expect(bytes.rawPayload.equals(photo)).toBe(true);
    const audit = await t.call({
      method: 'GET',
      url: `/api/v1/audit?stream=main/item/files/${record.id}`,
      as: admin,
      site: 'main',
    });
    expect(audit.json().data.map((e: { type: string }) => e.type)).toEqual(['ItemCreated']);
    expect((await snapshot()).temp).toBe(0);
  });

  it('creates a record per file part, with the same fields, in one answer', async () => {
    const before = await snapshot();
    const res = await send([
      { name: 'folder', value: '' },
      file('one.jpg', 'image/jpeg', photo),
      file('two.png', 'image/png', png),
      { name: 'title', value: 'Pair' },
    ]);
    expect(res.statusCode, res.body).toBe(201);
    const records = res.json().data as { id: string; filename: string; title: string; folder: null }[];
    expect(records.map((r) => [r.filename, r.title, r.folder])).toEqual([
      ['one.jpg', 'Pair', null],
      ['two.png', 'Pair', null],
    ]);
    expect(res.json().meta.revisionIds).toHaveLength(2);
    const after = await snapshot();
    expect([after.records - before.records, after.stored - before.stored]).toEqual([2, 2]);
  });

  it('puts a file in a folder of the site, and refuses one of another site', async () => {
    const folder = await t.call({
      method: 'POST',
      url: '/api/v1/folders',
      as: admin,
      site: 'main',
      payload: { name: 'Pics' },
    });
    expect(folder.statusCode, folder.body).toBe(201);
    const id = folder.json().data.id as string;
    const res = await send([{ name: 'folder', value: id }, file('in.jpg', 'image/jpeg', photo)]);
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json().data.folder).toBe(id);
    const foreign = await send([{ name: 'folder', value: id }, file('in.jpg', 'image/jpeg', photo)], {
      as: outsider,
      site: 'other',
    });
    expect(foreign.statusCode).toBe(400);
    expect((await t.deps.storage.list('sites/other/files/')).length).toBe(0);
  });

  it('refuses a part over the cap, cut off as it arrives, and keeps the connection from being read further', async () => {
    const cap = await t.call({
      method: 'PUT',
      url: '/api/v1/uploads/config',
      as: admin,
      site: 'main',
      payload: { maxBytes: 1000 },
    });
    expect(cap.statusCode, cap.body).toBe(200);
    try {
      const big = Buffer.concat([photo, Buffer.alloc(200_000)]);
      await expectRefused([file('big.jpg', 'image/jpeg', big)], 413, 'UPLOAD_TOO_LARGE');
      const refusal = (await snapshot()).refusals[0]!.data;
      expect(refusal.bytesRead).toBeGreaterThan(1000);
      expect(refusal.bytesRead).toBeLessThan(200_000);
      // Under the cap the same request passes.
      expect((await send([file('small.png', 'image/png', png)])).statusCode).toBe(201);
    } finally {
      await t.call({ method: 'PUT', url: '/api/v1/uploads/config', as: admin, site: 'main', payload: {} });
    }
  });

  it('stores nothing of several files when one is refused', async () => {
    const elf = Buffer.concat([Buffer.from([0x7f, 0x45, 0x4c, 0x46, 2, 1, 1]), Buffer.alloc(300)]);
    await expectRefused(
      [file('fine.jpg', 'image/jpeg', photo), file('tool.jpg', 'image/jpeg', elf)],
      422,
      'UPLOAD_EXECUTABLE',
    );
    await expectRefused(
      [file('fine.png', 'image/png', png), file('fine.jpg', 'image/jpeg', photo.subarray(0, 50))],
      422,
      'UPLOAD_MALFORMED',
    );
  });

  it('refuses filenames with path segments, a NUL or 10 000 characters', async () => {
    for (const name of ['../../etc/cron.d/x.jpg', 'dir/x.jpg', 'C:\\temp\\x.jpg']) {
      const e = await expectRefused([file(name, 'image/jpeg', photo)], 400, 'VALIDATION_FAILED');
      expect(e.path).toEqual(['filename']);
      expect(e.extensions.problem).toBe('contains a path separator');
    }
    const nul = await expectRefused([file('a\u0000b.jpg', 'image/jpeg', photo)], 400, 'VALIDATION_FAILED');
    expect(nul.extensions.problem).toBe('contains a NUL byte');
    const long = await expectRefused(
      [file(`${'a'.repeat(10_000)}.jpg`, 'image/jpeg', photo)],
      400,
      'VALIDATION_FAILED',
    );
    expect(long.extensions.problem).toMatch(/longer than 255 bytes/);
    // The refusal event keeps a bounded piece of the name.
    expect((await snapshot()).refusals[0]!.data.filename.length).toBe(300);
  });

  it('refuses a part whose declared type lies about its bytes', async () => {
    const e = await expectRefused([file('photo.png', 'image/png', photo)], 415, 'UPLOAD_TYPE_MISMATCH');
    expect(e.extensions).toMatchObject({ declared: 'image/png', detected: 'image/jpeg' });
    await expectRefused([file('photo.exe', 'application/x-msdownload', photo)], 415, 'UPLOAD_TYPE_NOT_ALLOWED');
  });

  it('refuses a body that ends inside a part', async () => {
    const { payload, headers } = multipartBody([file('cut.jpg', 'image/jpeg', photo)]);
    const e = await expectRefused(payload.subarray(0, 400), 400, 'VALIDATION_FAILED', headers);
    expect(e.extensions.reason).toBe('malformed_multipart');
    const noBoundary = await expectRefused(payload, 400, 'VALIDATION_FAILED', {
      'content-type': 'multipart/form-data',
    });
    expect(noBoundary.extensions.reason).toBe('malformed_multipart');
  });

  it('refuses more files than a request may carry', async () => {
    const parts = Array.from({ length: 11 }, (_, i) => file(`f${i}.png`, 'image/png', png));
    const e = await expectRefused(parts, 413, 'UPLOAD_TOO_LARGE');
    expect(e.extensions).toMatchObject({ limit: 'files', max: 10 });
  });

  it('answers 400 on the field for fields a file record does not take, and for a body without a file', async () => {
    const cases: [FormPart[], string[]][] = [
      [
        [{ name: 'uploadId', value: 'x' }, file('a.jpg', 'image/jpeg', photo)],
        ['body', 'uploadId'],
      ],
      [
        [{ name: 'title', value: 'a' }, { name: 'title', value: 'b' }, file('a.jpg', 'image/jpeg', photo)],
        ['body', 'title'],
      ],
      [
        [{ name: 'focal_point', value: '{"x":2}' }, file('a.jpg', 'image/jpeg', photo)],
        ['body', 'focal_point'],
      ],
      [
        [{ name: 'focal_point', value: 'nope' }, file('a.jpg', 'image/jpeg', photo)],
        ['body', 'focal_point'],
      ],
      [
        [{ name: 'title', value: 'x'.repeat(301) }, file('a.jpg', 'image/jpeg', photo)],
        ['body', 'title'],
      ],
      [[{ name: 'title', value: 'alone' }], ['body', 'file']],
      // What no JSON column stores (the fuzz found the NUL answered 500).
      [
        [{ name: 'title', value: 'a\u0000b' }, file('a.jpg', 'image/jpeg', photo)],
        ['body', 'title'],
      ],
      [
        [{ name: 'tags', value: 'ok' }, { name: 'tags', value: 'a\u0000' }, file('a.jpg', 'image/jpeg', photo)],
        ['body', 'tags'],
      ],
      [
        [{ name: 'focal_point', value: '{"__proto__":{"x":1}}' }, file('a.jpg', 'image/jpeg', photo)],
        ['body', 'focal_point', '__proto__'],
      ],
      [[{ name: 'upload', filename: 'a.jpg', type: 'image/jpeg', data: photo }], ['body', 'upload']],
    ];
    const before = await snapshot();
    for (const [parts, path] of cases) {
      const res = await send(parts);
      expect(res.statusCode, res.body).toBe(400);
      expect(res.json().errors[0]).toMatchObject({ code: 'VALIDATION_FAILED', path });
    }
    const after = await snapshot();
    expect([after.records, after.stored, after.temp]).toEqual([before.records, before.stored, 0]);
  });

  it('keeps the JSON registration of an upload id, and 400 without any body', async () => {
    const res = await t.call({
      method: 'POST',
      url: '/api/v1/files',
      as: admin,
      site: 'main',
      payload: { uploadId: 'nope' },
    });
    expect(res.statusCode).toBe(404);
    const empty = await t.call({ method: 'POST', url: '/api/v1/files', as: admin, site: 'main' });
    expect(empty.statusCode).toBe(400);
    expect(empty.json().errors[0].path).toEqual(['body']);
  });

  it("lets no one without media:create upload, and another site's user create or read nothing here", async () => {
    const before = await snapshot();
    expect((await send([file('v.jpg', 'image/jpeg', photo)], { as: viewer })).statusCode).toBe(403);
    expect((await send([file('o.jpg', 'image/jpeg', photo)], { as: outsider })).statusCode).toBe(403);
    const anonymous = multipartBody([file('a.jpg', 'image/jpeg', photo)]);
    const anon = await t.call({ method: 'POST', url: '/api/v1/files', site: 'main', ...anonymous });
    expect(anon.statusCode).toBe(401);
    const after = await snapshot();
    expect([after.records, after.stored, after.temp, after.refusals.length]).toEqual([
      before.records,
      before.stored,
      0,
      before.refusals.length,
    ]);
    // In their own site they upload; the file is theirs alone.
    const own = await send([file('theirs.jpg', 'image/jpeg', photo)], { as: outsider, site: 'other' });
    expect(own.statusCode, own.body).toBe(201);
    const id = own.json().data.id as string;
    expect((await t.call({ method: 'GET', url: `/api/v1/files/${id}`, as: admin, site: 'main' })).statusCode).toBe(404);
    const mine = (await send([file('mine.jpg', 'image/jpeg', photo)])).json().data.id as string;
    for (const url of [`/api/v1/files/${mine}`, `/api/v1/assets/${mine}`])
      expect((await t.call({ method: 'GET', url, as: outsider, site: 'other' })).statusCode, url).toBe(404);
    expect((await snapshot()).records).toBe(after.records + 1);
  });
});
