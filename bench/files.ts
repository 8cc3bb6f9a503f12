import autocannon from 'autocannon';
import { mkdtemp, rm } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { photoJpeg } from './photo.ts';
import { benchServer } from './server.ts';

/**
 * Files and media (issue budget: uploads stream with flat memory; transforms bounded): a 50 MB upload through the
 * upload guard (raw media and the presigned/registration path) with the server's peak RSS, then transforms of a
 * 2 000 × 1 500 JPEG to a 400 px WebP, cold (each request a new derivative) and cached (the same one again), and the
 * derivative itself. On the disk, and on S3 when TEST_S3_ENDPOINT is set (test/support/s3-server.sh).
 * `npm run bench:files`.
 */
const UPLOAD_MB = Number(process.env.UPLOAD_MB ?? 50);
const DURATION = Number(process.env.DURATION ?? 10);
const COLD = Number(process.env.COLD ?? 60);

/** A text body of `bytes`, made chunk by chunk (valid UTF-8, so the guard reads all of it). */
function textBody(bytes: number): Readable {
  const line = Buffer.from('The quick brown fox jumps over the lazy dog. 0123456789\n');
  let sent = 0;
  return new Readable({
    read() {
      if (sent >= bytes) return void this.push(null);
      const n = Math.min(64 * 1024, bytes - sent);
      const chunk = Buffer.alloc(n);
      for (let i = 0; i < n; i += line.length) line.copy(chunk, i, 0, Math.min(line.length, n - i));
      sent += n;
      this.push(chunk);
    },
  });
}

/** Peak resident memory of a process so far (VmHWM), in MB. */
const peakRss = (pid: number) => {
  const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Math.round(Number(m[1]) / 1024) : NaN;
};

async function run(mode: 'disk' | 's3') {
  const dir = await mkdtemp(join(tmpdir(), 'svc-bench-files-'));
  const env: Record<string, string> =
    mode === 's3'
      ? {
          S3_ENDPOINT: process.env.TEST_S3_ENDPOINT!,
          S3_BUCKET: process.env.TEST_S3_BUCKET ?? 'svc-test',
          S3_REGION: process.env.TEST_S3_REGION ?? 'us-east-1',
          S3_ACCESS_KEY_ID: process.env.TEST_S3_ACCESS_KEY_ID ?? '',
          S3_SECRET_ACCESS_KEY: process.env.TEST_S3_SECRET_ACCESS_KEY ?? '',
          S3_PREFIX: `bench-${Date.now()}/`,
        }
      : { SVC_FILES_DIR: dir };
  const { server, login, close } = await benchServer('svc_bench_files', {
    ...env,
    SVC_UPLOAD_TMP_DIR: join(dir, 'tmp'),
    SVC_RATE_LIMIT_DISABLED: 'true',
  });
  const pid = server.child.pid!;
  const rows: string[] = [];
  try {
    const token = await login();
    const auth = { authorization: `Bearer ${token}`, 'x-svc-site': 'bench' };
    const before = peakRss(pid);
    const bytes = UPLOAD_MB * 1024 * 1024;
    let t0 = Date.now();
    const media = await fetch(`${server.url}/api/v1/media/big.txt`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'text/plain' },
      body: Readable.toWeb(textBody(bytes)) as ReadableStream,
      duplex: 'half',
    } as RequestInit);
    if (media.status !== 201) throw new Error(`upload: ${media.status} ${await media.text()}`);
    const mediaMs = Date.now() - t0;
    const afterMedia = peakRss(pid);
    t0 = Date.now();
    const presign = await fetch(`${server.url}/api/v1/files/presigned-url`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ filename: 'big.txt', mimeType: 'text/plain', size: bytes }),
    });
    const address = (
      (await presign.json()) as { data: { uploadId: string; url: string; headers: Record<string, string> } }
    ).data;
    const target = address.url.startsWith('/') ? `${server.url}${address.url}` : address.url;
    const put = await fetch(target, {
      method: 'PUT',
      headers: address.url.startsWith('/') ? { ...address.headers, 'x-svc-site': 'bench' } : address.headers,
      body: Readable.toWeb(textBody(bytes)) as ReadableStream,
      duplex: 'half',
    } as RequestInit);
    if (put.status >= 300) throw new Error(`PUT: ${put.status} ${await put.text()}`);
    const reg = await fetch(`${server.url}/api/v1/files`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ uploadId: address.uploadId }),
    });
    if (reg.status !== 201) throw new Error(`register: ${reg.status} ${await reg.text()}`);
    const fileMs = Date.now() - t0;
    const afterFile = peakRss(pid);
    rows.push(
      `| ${mode} | upload ${UPLOAD_MB} MB: POST /media/:key | ${mediaMs} ms (${Math.round((UPLOAD_MB * 1000) / mediaMs)} MB/s) | peak RSS ${before} → ${afterMedia} MB |`,
      `| ${mode} | upload ${UPLOAD_MB} MB: presigned PUT + POST /files | ${fileMs} ms (${Math.round((UPLOAD_MB * 1000) / fileMs)} MB/s) | peak RSS → ${afterFile} MB |`,
    );

    const photo = await photoJpeg();
    const up = await fetch(`${server.url}/api/v1/media/photo.jpg`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'image/jpeg' },
      body: new Uint8Array(photo),
    });
    if (up.status !== 201) throw new Error(`photo: ${up.status} ${await up.text()}`);
    // Cold: every request a derivative not made before (widths 400, 401, …), 10 at a time.
    let w = 400;
    t0 = Date.now();
    const cold = await autocannon({
      url: server.url,
      connections: 10,
      amount: COLD,
      requests: [
        {
          method: 'GET',
          headers: auth,
          setupRequest: (r) => ({ ...r, path: `/api/v1/media/photo.jpg?width=${w++}&format=webp` }),
        },
      ],
    });
    const coldMs = Date.now() - t0;
    rows.push(
      `| ${mode} | transform 2000×1500 JPEG → ${400}–${w - 1} px WebP, cold (${COLD} derivatives) | ${Math.round((COLD * 1000) / coldMs)} req/s | p99 ${cold.latency.p99} ms, non-2xx/3xx ${cold.non2xx - cold['3xx']} |`,
    );
    const path = '/api/v1/media/photo.jpg?width=400&format=webp';
    const hot = await autocannon({
      url: server.url,
      connections: 10,
      duration: DURATION,
      requests: [{ method: 'GET', path, headers: auth }],
    });
    rows.push(
      `| ${mode} | the same transform again (302 to the made derivative) | ${Math.round(hot.requests.mean)} req/s | p99 ${hot.latency.p99} ms |`,
    );
    const location = (await fetch(`${server.url}${path}`, { headers: auth, redirect: 'manual' })).headers.get(
      'location',
    )!;
    const served = await autocannon({
      url: server.url,
      connections: 10,
      duration: DURATION,
      requests: [{ method: 'GET', path: location, headers: auth }],
    });
    rows.push(
      `| ${mode} | the derivative itself (GET its address) | ${Math.round(served.requests.mean)} req/s | p99 ${served.latency.p99} ms, peak RSS ${peakRss(pid)} MB |`,
    );
  } finally {
    await close();
    await rm(dir, { recursive: true, force: true });
  }
  return rows;
}

const rows = [...(await run('disk')), ...(process.env.TEST_S3_ENDPOINT ? await run('s3') : [])];
console.log(
  [
    `Files and media, PostgreSQL, ${DURATION} s per cached row${process.env.TEST_S3_ENDPOINT ? '' : ' (S3 skipped: TEST_S3_ENDPOINT is not set)'}.`,
    '',
    '| storage | scenario | result | detail |',
    '| --- | --- | --- | --- |',
    ...rows,
  ].join('\n'),
);
