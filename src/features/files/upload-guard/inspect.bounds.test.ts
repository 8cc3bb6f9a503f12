import { createWriteStream } from 'node:fs';
import { once } from 'node:events';
import { join } from 'node:path';
import { deflateSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as corpus from '../../../../test/fixtures/uploads/corpus.ts';
import { DEFAULT_UPLOAD_POLICY } from './catalogue.ts';
import { inspectUpload } from './inspect.ts';

let files: Awaited<ReturnType<typeof corpus.uploadDir>>;
beforeAll(async () => {
  files = await corpus.uploadDir();
});
afterAll(() => files.remove());

const MB = 1024 * 1024;
const LARGE = 60 * MB;

/** Writes `head`, then `block` until the file holds LARGE bytes, then `tail`, without holding the file in memory. */
async function writeLarge(name: string, head: Buffer, block: Buffer, tail: Buffer) {
  const path = join(files.dir, name);
  const out = createWriteStream(path);
  const write = async (b: Buffer) => {
    if (!out.write(b)) await once(out, 'drain');
  };
  await write(head);
  for (let size = head.length; size < LARGE; size += block.length) await write(block);
  await write(tail);
  out.end();
  await once(out, 'finish');
  return { path, size: out.bytesWritten };
}

/** The largest growth of the resident set while `work` runs, sampled on a timer. */
async function rssGrowth(work: () => Promise<unknown>): Promise<number> {
  const before = process.memoryUsage().rss;
  let peak = before;
  const sample = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss);
  }, 1);
  try {
    await work();
  } finally {
    clearInterval(sample);
  }
  return Math.max(peak, process.memoryUsage().rss) - before;
}

describe('inspectUpload within bounded memory', () => {
  it('checks a 60 MB text file streaming, its memory growing far less than the file', async () => {
    const line = Buffer.from('Lorem ipsum dolor sit amet, consectetur adipiscing elit — ünïcödé 🌍\n');
    const block = Buffer.concat(Array.from({ length: Math.ceil((64 * 1024) / line.length) }, () => line));
    const file = await writeLarge('large.txt', Buffer.alloc(0), block, Buffer.from('the end\n'));
    expect(file.size).toBeGreaterThanOrEqual(LARGE);
    const growth = await rssGrowth(() =>
      expect(
        inspectUpload(file, { filename: 'large.txt', mimeType: 'text/plain' }, DEFAULT_UPLOAD_POLICY),
      ).resolves.toEqual({
        mimeType: 'text/plain',
        extension: 'txt',
      }),
    );
    expect(growth).toBeLessThan(LARGE / 4);
  });

  it('walks a JPEG with 60 MB of entropy-coded data streaming, its memory growing far less than the file', async () => {
    const jpeg = await corpus.cleanJpeg();
    // Entropy-coded filler with stuffed FF00 pairs and restart markers, before the original EOI.
    const block = Buffer.alloc(64 * 1024, 0x5a);
    for (let at = 0; at + 1 < block.length; at += 997) block.set(at % 2 ? [0xff, 0x00] : [0xff, 0xd0 + (at % 8)], at);
    const file = await writeLarge('large.jpg', jpeg.subarray(0, -2), block, jpeg.subarray(-2));
    const growth = await rssGrowth(() =>
      expect(
        inspectUpload(file, { filename: 'large.jpg', mimeType: 'image/jpeg' }, DEFAULT_UPLOAD_POLICY),
      ).resolves.toEqual({
        mimeType: 'image/jpeg',
        extension: 'jpg',
        ...corpus.IMAGE,
      }),
    );
    expect(growth).toBeLessThan(LARGE / 4);
  });

  it('inflates a zTXt chunk up to its first megabyte and refuses it past that: a zip bomb costs nothing', async () => {
    const ztxt = (text: Buffer) => Buffer.concat([Buffer.from('Comment\0\0', 'latin1'), deflateSync(text)]);
    const script = Buffer.from('<script>');
    const early = await corpus.pngWithZtxt(ztxt(Buffer.concat([Buffer.alloc(MB - 64, 0x78), script])));
    const late = await corpus.pngWithZtxt(ztxt(Buffer.concat([Buffer.alloc(64 * MB, 0x78), script])));
    const declared = { filename: 'x.png', mimeType: 'image/png' };
    await expect(inspectUpload(await files.write('early.png', early), declared, DEFAULT_UPLOAD_POLICY)).rejects.toThrow(
      /carries "<script" in its zTXt chunk/,
    );
    const file = await files.write('late.png', late);
    const growth = await rssGrowth(() =>
      expect(inspectUpload(file, declared, DEFAULT_UPLOAD_POLICY)).rejects.toThrow(
        /the zTXt chunk inflates to more than 1048576 bytes/,
      ),
    );
    expect(growth).toBeLessThan(16 * MB);
  });
});
