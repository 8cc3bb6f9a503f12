import { createHash, randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ObjectTooLarge, type ObjectStorage } from '../../src/kernel/storage/object-storage.ts';

export interface StorageSubject {
  storage: ObjectStorage;
  close(): Promise<void>;
}

const body = (data: Buffer | string): Readable => Readable.from([Buffer.from(data)]);

/** A body of `size` bytes made chunk by chunk (never held whole), with its sha256. */
export function generatedBody(size: number, seed = 1): { stream: Readable; sha256: () => string } {
  const hash = createHash('sha256');
  let sent = 0;
  let n = seed;
  const stream = new Readable({
    read() {
      if (sent >= size) return void this.push(null);
      const chunk = Buffer.alloc(Math.min(64 * 1024, size - sent));
      for (let i = 0; i < chunk.length; i++) chunk[i] = (n = (n * 1103515245 + 12345) & 0x7fffffff) & 0xff;
      sent += chunk.length;
      hash.update(chunk);
      this.push(chunk);
    },
  });
  return { stream, sha256: () => hash.digest('hex') };
}

export async function drain(stream: Readable): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const part of stream) parts.push(Buffer.from(part as Uint8Array));
  return Buffer.concat(parts);
}

async function sha256Of(stream: Readable): Promise<string> {
  const hash = createHash('sha256');
  for await (const part of stream) hash.update(part as Uint8Array);
  return hash.digest('hex');
}

/** The behaviour every file storage adapter must have (DESIGN §2, files row); each adapter's test file runs it. */
export function objectStorageContract(name: string, open: () => Promise<StorageSubject>): void {
  describe(`object storage contract: ${name}`, () => {
    let subject: StorageSubject;
    let s: ObjectStorage;
    // Every test its own folder, so the contract holds on a store other runs share.
    const folder = () => `c${randomBytes(6).toString('hex')}`;
    beforeAll(async () => {
      subject = await open();
      s = subject.storage;
    });
    afterAll(() => subject.close());

    it('stores a body and gives the same bytes, size and content type back', async () => {
      const key = `${folder()}/a/photo.jpg`;
      const stored = await s.put(key, body('hello, world'), { contentType: 'image/jpeg' });
      expect(stored).toMatchObject({ key, size: 12 });
      const got = await s.get(key);
      expect(got).toMatchObject({ key, size: 12, contentType: 'image/jpeg' });
      expect((await drain(got!.body)).toString()).toBe('hello, world');
      expect(await s.head(key)).toMatchObject({ key, size: 12, contentType: 'image/jpeg' });
    });

    it('answers null for an object that is not there, and deletes idempotently', async () => {
      const key = `${folder()}/missing.bin`;
      expect(await s.get(key)).toBeNull();
      expect(await s.head(key)).toBeNull();
      await s.delete(key);
      await s.put(key, body('x'));
      await s.delete(key);
      await s.delete(key);
      expect(await s.head(key)).toBeNull();
    });

    it('replaces an object, and an empty body is an object of size 0', async () => {
      const key = `${folder()}/r.txt`;
      await s.put(key, body('first version'));
      await s.put(key, body('second'));
      expect((await drain((await s.get(key))!.body)).toString()).toBe('second');
      await s.put(key, body(''));
      expect(await s.head(key)).toMatchObject({ size: 0 });
      expect((await drain((await s.get(key))!.body)).length).toBe(0);
    });

    it('serves a byte range with inclusive ends, clipped at the end', async () => {
      const key = `${folder()}/range.txt`;
      await s.put(key, body('0123456789'));
      const mid = await s.get(key, { start: 2, end: 5 });
      expect((await drain(mid!.body)).toString()).toBe('2345');
      expect(mid!.range).toEqual({ start: 2, end: 5 });
      expect(mid!.size).toBe(10);
      const tail = await s.get(key, { start: 7, end: 100 });
      expect((await drain(tail!.body)).toString()).toBe('789');
      expect(tail!.range).toEqual({ start: 7, end: 9 });
    });

    it('aborts a body past the cap: throws ObjectTooLarge and stores nothing, keeping what was there', async () => {
      const key = `${folder()}/capped.bin`;
      await expect(s.put(key, body('12345678901'), { maxBytes: 10 })).rejects.toBeInstanceOf(ObjectTooLarge);
      expect(await s.head(key)).toBeNull();
      await s.put(key, body('1234567890'), { maxBytes: 10 });
      expect(await s.head(key)).toMatchObject({ size: 10 });
      await expect(s.put(key, generatedBody(300_000).stream, { maxBytes: 200_000 })).rejects.toBeInstanceOf(
        ObjectTooLarge,
      );
      expect((await drain((await s.get(key))!.body)).toString()).toBe('1234567890');
    });

    it('streams a large body in and out unchanged', async () => {
      const key = `${folder()}/large.bin`;
      const big = generatedBody(12 * 1024 * 1024 + 3);
      const stored = await s.put(key, big.stream, { contentType: 'application/octet-stream' });
      expect(stored.size).toBe(12 * 1024 * 1024 + 3);
      expect(await sha256Of((await s.get(key))!.body)).toBe(big.sha256());
    });

    it('copies an object to another key', async () => {
      const dir = folder();
      await s.put(`${dir}/from.txt`, body('copied'), { contentType: 'text/plain' });
      await s.copy(`${dir}/from.txt`, `${dir}/sub/to.txt`);
      expect((await drain((await s.get(`${dir}/sub/to.txt`))!.body)).toString()).toBe('copied');
      expect(await s.head(`${dir}/from.txt`)).toMatchObject({ size: 6 });
    });

    it('lists the keys under a prefix in lexical order, after a key, at most a limit', async () => {
      const dir = folder();
      for (const k of ['b.txt', 'a.txt', 'sub/c.txt', 'sub/a.txt', 'ab.txt']) await s.put(`${dir}/${k}`, body(k));
      await s.put(`${dir}x/other.txt`, body('elsewhere'));
      expect(await s.list(`${dir}/`)).toEqual(
        ['a.txt', 'ab.txt', 'b.txt', 'sub/a.txt', 'sub/c.txt'].map((k) => `${dir}/${k}`),
      );
      expect(await s.list(`${dir}/a`)).toEqual([`${dir}/a.txt`, `${dir}/ab.txt`]);
      expect(await s.list(`${dir}/`, { after: `${dir}/b.txt`, limit: 1 })).toEqual([`${dir}/sub/a.txt`]);
      expect(await s.list(`${folder()}/`)).toEqual([]);
    });

    it('refuses keys that could leave their place', async () => {
      for (const key of ['', '../x', 'a/../../x', '/abs', 'a//b', '.hidden', 'a/.b', 'a\u0000b', 'a\\b', 'a/', 'ü'])
        await expect(s.put(key, body('x')), JSON.stringify(key)).rejects.toThrow(TypeError);
      await expect(s.get('../etc/passwd')).rejects.toThrow(TypeError);
      await expect(s.delete('a/../b')).rejects.toThrow(TypeError);
    });

    it('keeps concurrent writes to different keys apart', async () => {
      const dir = folder();
      const keys = Array.from({ length: 12 }, (_, i) => `${dir}/k${i}.txt`);
      await Promise.all(keys.map((k) => s.put(k, body(k))));
      for (const k of keys) expect((await drain((await s.get(k))!.body)).toString()).toBe(k);
    });
  });
}
