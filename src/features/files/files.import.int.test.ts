import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/setup/app.ts';
import { createUser } from '../../../test/setup/users.ts';

// The remote server is on loopback: `open` may reach it (SVC_FILE_IMPORT_ALLOW_PRIVATE, as tests of webhooks and
// flows do), `strict` runs with the rule on, as production does.
let open: TestApp;
let strict: TestApp;
let admin: string;
let strictAdmin: string;
let outsider: string;
let server: Server;
let base: string;
let photo: Buffer;
const hits: string[] = [];

beforeAll(async () => {
  photo = await sharp({ create: { width: 20, height: 10, channels: 3, background: '#118844' } })
    .jpeg()
    .toBuffer();
  server = createServer((req, res) => {
    hits.push(req.url ?? '');
    if (req.url === '/photos/sea%20view.jpg') return res.writeHead(200, { 'content-type': 'image/jpeg' }).end(photo);
    if (req.url === '/lie.png') return res.writeHead(200, { 'content-type': 'image/png' }).end(photo);
    if (req.url === '/redirect.jpg') return res.writeHead(302, { location: 'http://127.0.0.1:9/x.jpg' }).end();
    if (req.url === '/missing.jpg') return res.writeHead(404).end();
    if (req.url === '/slow.jpg')
      return void res.writeHead(200, { 'content-type': 'image/jpeg' }).write(photo.subarray(0, 10));
    if (req.url === '/endless.jpg') {
      // Chunked, no length: only the bytes tell the size.
      res.writeHead(200, { 'content-type': 'image/jpeg' });
      res.write(photo.subarray(0, 100));
      const timer = setInterval(() => res.write(Buffer.alloc(16_384)), 1);
      res.on('close', () => clearInterval(timer));
      return;
    }
    if (req.url === '/declared-big.jpg')
      return res.writeHead(200, { 'content-type': 'image/jpeg', 'content-length': '5000000' }).end(photo);
    res.writeHead(404).end();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  open = await createTestApp({ env: { SVC_FILE_IMPORT_ALLOW_PRIVATE: 'true', SVC_FILE_IMPORT_TIMEOUT_MS: '1000' } });
  admin = await open.setup();
  const site = await open.call({
    method: 'POST',
    url: '/api/v1/sites',
    as: admin,
    payload: { id: 'other', name: 'O' },
  });
  expect(site.statusCode).toBe(201);
  outsider = await createUser(open, 'outsider@import.test', 'Files-pass-1618!x', { other: 'site_admin' });
  strict = await createTestApp();
  strictAdmin = await strict.setup();
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((r) => server.close(() => r()));
  await open?.close();
  await strict?.close();
});

const importFile = (t: TestApp, payload: object, as: string, site = 'main') =>
  t.call({ method: 'POST', url: '/api/v1/files/import', as, site, payload });

async function state(t: TestApp, as: string) {
  const list = await t.call({ method: 'GET', url: '/api/v1/files?limit=200&fields=id', as, site: 'main' });
  const refusals = await t.call({ method: 'GET', url: '/api/v1/audit?type=UploadRefused&limit=200', as, site: 'main' });
  return {
    records: (list.json().data as unknown[]).length,
    stored: (await t.deps.storage.list('sites/main/files/')).length,
    refusals: refusals.json().data as { data: { code: string; bytesRead: number; filename: string } }[],
  };
}

/** An import that must be refused: this status and code (and reason), nothing stored, one refusal recorded. */
async function expectRefused(t: TestApp, as: string, url: string, status: number, code: string, reason?: string) {
  const before = await state(t, as);
  const res = await importFile(t, { url }, as);
  expect(res.statusCode, res.body).toBe(status);
  expect(res.json().errors[0].code).toBe(code);
  if (reason) expect(res.json().errors[0]).toMatchObject({ path: ['body', 'url'], extensions: { reason } });
  const after = await state(t, as);
  expect([after.records, after.stored]).toEqual([before.records, before.stored]);
  expect(after.refusals.length).toBe(before.refusals.length + 1);
  expect(after.refusals[0]!.data.code).toBe(code);
  return after.refusals[0]!.data;
}

describe('POST /api/v1/files/import', () => {
  it('fetches a file, guards it and stores it as a file record with the fields given', async () => {
    const res = await importFile(open, { url: `${base}/photos/sea%20view.jpg`, title: 'Sea', tags: ['blue'] }, admin);
    expect(res.statusCode, res.body).toBe(201);
    const record = res.json().data;
    expect(record).toMatchObject({
      filename: 'sea view.jpg',
      type: 'image/jpeg',
      filesize: photo.length,
      width: 20,
      height: 10,
      title: 'Sea',
      tags: ['blue'],
    });
    const bytes = await open.call({ method: 'GET', url: `/api/v1/assets/${record.id}`, as: admin, site: 'main' });
    expect(bytes.rawPayload.equals(photo)).toBe(true);
    const named = await importFile(open, { url: `${base}/photos/sea%20view.jpg`, filename: 'renamed.jpg' }, admin);
    expect(named.json().data.filename).toBe('renamed.jpg');
  });

  it('refuses loopback addresses in any spelling with the rule on, before connecting', async () => {
    const port = new URL(base).port;
    const before = hits.length;
    for (const host of ['127.0.0.1', 'localhost', '[::1]', '2130706433', '[::ffff:127.0.0.1]'])
      await expectRefused(
        strict,
        strictAdmin,
        `http://${host}:${port}/photos/sea%20view.jpg`,
        400,
        'VALIDATION_FAILED',
        'private_address',
      );
    expect(hits.length).toBe(before);
    await expectRefused(strict, strictAdmin, 'file:///etc/passwd', 400, 'VALIDATION_FAILED', 'bad_url');
  });

  it('follows no redirect, and refuses other statuses and a server that stops sending', async () => {
    await expectRefused(open, admin, `${base}/redirect.jpg`, 400, 'VALIDATION_FAILED', 'redirect');
    await expectRefused(open, admin, `${base}/missing.jpg`, 400, 'VALIDATION_FAILED', 'status');
    await expectRefused(open, admin, `${base}/slow.jpg`, 400, 'VALIDATION_FAILED', 'timeout');
  });

  it('counts the cap on the bytes, and refuses a declared length over it before reading', async () => {
    const cap = await open.call({
      method: 'PUT',
      url: '/api/v1/uploads/config',
      as: admin,
      site: 'main',
      payload: { maxBytes: 50_000 },
    });
    expect(cap.statusCode, cap.body).toBe(200);
    try {
      const endless = await expectRefused(open, admin, `${base}/endless.jpg`, 413, 'UPLOAD_TOO_LARGE');
      expect(endless.bytesRead).toBeGreaterThan(50_000);
      expect(endless.bytesRead).toBeLessThan(200_000);
      const declared = await expectRefused(open, admin, `${base}/declared-big.jpg`, 413, 'UPLOAD_TOO_LARGE');
      expect(declared.bytesRead).toBe(0);
    } finally {
      await open.call({ method: 'PUT', url: '/api/v1/uploads/config', as: admin, site: 'main', payload: {} });
    }
  });

  it('runs the upload guard on what it fetched', async () => {
    await expectRefused(open, admin, `${base}/lie.png`, 415, 'UPLOAD_TYPE_MISMATCH');
    const bad = await importFile(open, { url: `${base}/photos/sea%20view.jpg`, filename: '../x.jpg' }, admin);
    expect(bad.statusCode).toBe(400);
    expect(bad.json().errors[0].path).toEqual(['filename']);
  });

  it("imports as the caller: another site's user creates nothing here, and what they import stays theirs", async () => {
    const before = await state(open, admin);
    const hitsBefore = hits.length;
    expect((await importFile(open, { url: `${base}/photos/sea%20view.jpg` }, outsider)).statusCode).toBe(403);
    expect(
      (await open.call({ method: 'POST', url: '/api/v1/files/import', site: 'main', payload: { url: base } }))
        .statusCode,
    ).toBe(401);
    expect(hits.length).toBe(hitsBefore);
    const theirs = await importFile(open, { url: `${base}/photos/sea%20view.jpg` }, outsider, 'other');
    expect(theirs.statusCode, theirs.body).toBe(201);
    const id = theirs.json().data.id as string;
    expect((await open.call({ method: 'GET', url: `/api/v1/files/${id}`, as: admin, site: 'main' })).statusCode).toBe(
      404,
    );
    const after = await state(open, admin);
    expect([after.records, after.stored, after.refusals.length]).toEqual([
      before.records,
      before.stored,
      before.refusals.length,
    ]);
  });

  it('answers 400 on bad bodies without fetching', async () => {
    const before = hits.length;
    for (const body of [
      {},
      { url: 42 },
      { url: `${base}/photos/sea%20view.jpg`, uploadId: 'x' },
      { url: `${base}/a.jpg`, folder: 'nope' },
    ]) {
      const res = await importFile(open, body, admin);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
    }
    expect(hits.length).toBe(before);
  });
});
