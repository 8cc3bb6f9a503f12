import { randomBytes, randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { HeadObjectCommand, ListMultipartUploadsCommand, S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { drain, objectStorageContract } from '../../../test/contracts/object-storage.contract.ts';
import { ObjectTooLarge } from '../../kernel/storage/object-storage.ts';
import { S3ObjectStorage } from './s3-storage.ts';

const endpoint = process.env.TEST_S3_ENDPOINT;
if (!endpoint) console.info('S3 contract skipped: TEST_S3_ENDPOINT is not set');

const settings = {
  endpoint,
  bucket: process.env.TEST_S3_BUCKET ?? 'svc-test',
  region: process.env.TEST_S3_REGION ?? 'us-east-1',
  accessKeyId: process.env.TEST_S3_ACCESS_KEY_ID,
  secretAccessKey: process.env.TEST_S3_SECRET_ACCESS_KEY,
};

/** A prefix of its own: the bucket holds other runs' and other test files' objects. */
const randomPrefix = () => `test-${randomUUID()}/`;

/** Removes what the storage holds under its prefix, then closes it. */
async function discard(storage: S3ObjectStorage): Promise<void> {
  for (let keys = await storage.list(''); keys.length > 0; keys = await storage.list('')) {
    await Promise.all(keys.map((key) => storage.delete(key)));
  }
  await storage.close();
}

const MB = 1024 * 1024;

/** `size` bytes in 64 KiB chunks; `pause(sent)` runs before each chunk and may hold the stream. */
function slowBody(size: number, pause: (sent: number) => Promise<void>): Readable {
  return Readable.from(
    (async function* () {
      const chunk = randomBytes(64 * 1024);
      for (let sent = 0; sent < size; sent += chunk.length) {
        await pause(sent);
        yield chunk.subarray(0, Math.min(chunk.length, size - sent));
      }
    })(),
  );
}

describe.skipIf(!endpoint)('S3 adapter (TEST_S3_ENDPOINT)', () => {
  objectStorageContract('S3', async () => {
    const storage = new S3ObjectStorage({ ...settings, prefix: randomPrefix() });
    return { storage, close: () => discard(storage) };
  });

  describe('S3 only', () => {
    const { bucket, region, accessKeyId, secretAccessKey } = settings;
    const prefix = randomPrefix();
    let storage: S3ObjectStorage;
    /** The bucket as the SDK sees it, to look behind the adapter. */
    let raw: S3Client;

    beforeAll(() => {
      storage = new S3ObjectStorage({ ...settings, prefix });
      raw = new S3Client({
        endpoint,
        region,
        forcePathStyle: true,
        ...(accessKeyId && secretAccessKey ? { credentials: { accessKeyId, secretAccessKey } } : {}),
        requestChecksumCalculation: 'WHEN_REQUIRED',
        responseChecksumValidation: 'WHEN_REQUIRED',
      });
    });
    afterAll(async () => {
      await discard(storage);
      raw.destroy();
    });

    const openUploads = async (key: string) =>
      (await raw.send(new ListMultipartUploadsCommand({ Bucket: bucket, Prefix: prefix + key }))).Uploads ?? [];

    it('keeps every object under its prefix', async () => {
      await storage.put('placed/here.txt', Readable.from([Buffer.from('here')]), { contentType: 'text/plain' });
      const found = await raw.send(new HeadObjectCommand({ Bucket: bucket, Key: `${prefix}placed/here.txt` }));
      expect(found.ContentLength).toBe(4);
      expect(await storage.list('placed/')).toEqual(['placed/here.txt']);
    });

    it('refuses a range that starts past the end with a RangeError, as the disk does', async () => {
      await storage.put('ranges/short.txt', Readable.from([Buffer.from('short')]));
      await expect(storage.get('ranges/short.txt', { start: 5, end: 10 })).rejects.toThrow(RangeError);
    });

    describe('a presigned PUT', () => {
      const body = Buffer.from('{"presigned":true}');
      const presign = (key: string, expiresInSeconds = 60) =>
        storage.presignPut(key, { contentType: 'application/json', contentLength: body.length, expiresInSeconds });

      it('stores the body sent with exactly the headers it names', async () => {
        const signed = await presign('presigned/ok.json');
        expect(signed).toMatchObject({
          method: 'PUT',
          headers: { 'content-type': 'application/json', 'content-length': String(body.length) },
        });
        expect(Date.parse(signed.expiresAt) - Date.now()).toBeGreaterThan(50_000);
        const res = await fetch(signed.url, { method: 'PUT', headers: signed.headers, body });
        expect(res.status).toBe(200);
        const got = await storage.get('presigned/ok.json');
        expect(got).toMatchObject({ size: body.length, contentType: 'application/json' });
        expect(await drain(got!.body)).toEqual(body);
      });

      it('is refused for a longer body or another content type (both headers are signed)', async () => {
        const signed = await presign('presigned/refused.json');
        expect(new URL(signed.url).searchParams.get('X-Amz-SignedHeaders')).toBe('content-length;content-type;host');
        const longer = Buffer.concat([body, Buffer.from('and more')]);
        const tooLong = await fetch(signed.url, {
          method: 'PUT',
          headers: { 'content-type': 'application/json' },
          body: longer,
        });
        expect(tooLong.status).toBe(403);
        expect(await tooLong.text()).toContain('SignatureDoesNotMatch');
        const html = await fetch(signed.url, {
          method: 'PUT',
          headers: { ...signed.headers, 'content-type': 'text/html' },
          body,
        });
        expect(html.status).toBe(403);
        expect(await html.text()).toContain('SignatureDoesNotMatch');
        expect(await storage.head('presigned/refused.json')).toBeNull();
      });

      it('is refused once expired', async () => {
        const signed = await presign('presigned/late.json', 1);
        await sleep(2_100);
        const res = await fetch(signed.url, { method: 'PUT', headers: signed.headers, body });
        expect(res.status).toBe(403);
        expect(await res.text()).toContain('AccessDenied');
        expect(await storage.head('presigned/late.json')).toBeNull();
      });
    });

    describe('a put past maxBytes', () => {
      it('sends nothing while the body fits in one part', async () => {
        const body = slowBody(3 * MB, async () => {});
        await expect(storage.put('capped/small.bin', body, { maxBytes: 2 * MB })).rejects.toBeInstanceOf(
          ObjectTooLarge,
        );
        expect(await storage.head('capped/small.bin')).toBeNull();
        expect(await openUploads('capped/small.bin')).toEqual([]);
      });

      it('aborts the multipart upload it had begun: no object, no open upload', async () => {
        const key = 'capped/large.bin';
        let seenOpen = false;
        // Past two full parts the upload is under way: wait until the server shows it open, then go on.
        const body = slowBody(16 * MB, async (sent) => {
          if (sent !== 10 * MB + 512 * 1024) return;
          await vi.waitFor(async () => expect(await openUploads(key)).toHaveLength(1), { timeout: 10_000 });
          seenOpen = true;
        });
        await expect(storage.put(key, body, { maxBytes: 11 * MB })).rejects.toBeInstanceOf(ObjectTooLarge);
        expect(seenOpen).toBe(true);
        expect(await storage.head(key)).toBeNull();
        expect(await openUploads(key)).toEqual([]);
        expect(await storage.list('capped/')).toEqual([]);
      });
    });
  });
});
