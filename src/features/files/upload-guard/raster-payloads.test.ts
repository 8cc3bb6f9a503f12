import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as corpus from '../../../../test/fixtures/uploads/corpus.ts';
import { uploadGuard } from '../../../../test/fixtures/uploads/guard.ts';
import * as hostile from '../../../../test/fixtures/uploads/hostile-rasters.ts';
import { INFLATE_LIMIT } from './raster.ts';

let guard: Awaited<ReturnType<typeof uploadGuard>>;
beforeAll(async () => {
  guard = await uploadGuard();
});
afterAll(() => guard.remove());

const { PHP, SCRIPT } = hostile;
type Row = [name: string, build: () => Promise<Buffer>, message: RegExp];

/** Refuses `build()` declared by `file`'s extension with `code` and a message matching `message`. */
async function expectRefusal(build: () => Promise<Buffer>, file: string, code: string, message: RegExp) {
  const err = await guard.refusal(build(), file);
  expect([err.code, err.message]).toEqual([code, expect.stringMatching(message)]);
}

const refusesPayloads = (file: string, rows: Row[]) =>
  it.each(rows)('refuses %s with UPLOAD_EMBEDDED_PAYLOAD', (_name, build, message) =>
    expectRefusal(build, file, 'UPLOAD_EMBEDDED_PAYLOAD', message),
  );

describe('inspectUpload on payloads hidden in raster images', () => {
  describe('PNG', () => {
    refusesPayloads('x.png', [
      ['PHP in a private chunk', hostile.pngWithPhpInPrivateChunk, /carries "<\?php" in its prVt chunk/],
      ['PHP in the palette', hostile.pngWithPhpInPalette, /carries "<\?php" in its PLTE chunk/],
      ['PHP inside a non-empty IEND', hostile.pngWithPhpInIend, /carries "<\?php" in its IEND chunk/],
    ]);

    it.each([
      ['a zTXt chunk', 'zTXt', hostile.pngWithZtxtInflatingTo],
      ['a compressed iTXt chunk', 'iTXt', hostile.pngWithCompressedItxtInflatingTo],
    ])('refuses %s that inflates past the limit instead of accepting it unread', (_name, type, build) =>
      expectRefusal(
        () => build(INFLATE_LIMIT + 1),
        'x.png',
        'UPLOAD_MALFORMED',
        new RegExp(`the ${type} chunk inflates to more than ${INFLATE_LIMIT} bytes`),
      ),
    );

    it('accepts a zTXt chunk that inflates to exactly the limit, and a palette PNG', async () => {
      const inspected = [await hostile.pngWithZtxtInflatingTo(INFLATE_LIMIT), await corpus.cleanPalettePng()];
      for (const png of inspected) {
        expect(await guard.inspect(png, 'x.png')).toEqual({ mimeType: 'image/png', extension: 'png', ...corpus.IMAGE });
      }
    });
  });

  describe('JPEG', () => {
    const table = Buffer.concat([Buffer.from([0x01]), PHP, Buffer.alloc(64 - PHP.length)]);
    refusesPayloads('x.jpg', [
      ['PHP in a quantisation table (DQT)', () => hostile.jpegWithSegment(0xdb, table), /"<\?php" in its DQT segment/],
      ['PHP in a Huffman table (DHT)', () => hostile.jpegWithSegment(0xc4, table), /"<\?php" in its DHT segment/],
      ['PHP in a restart interval (DRI)', () => hostile.jpegWithSegment(0xdd, PHP), /"<\?php" in its DRI segment/],
      ['a script in a JPG0 segment', () => hostile.jpegWithSegment(0xf0, SCRIPT), /"<script" in its JPG0 segment/],
      ['a script in a JPG13 segment', () => hostile.jpegWithSegment(0xfd, SCRIPT), /"<script" in its JPG13 segment/],
      ['PHP after the frame header', () => hostile.jpegWithLongFrameHeader(PHP), /"<\?php" in its SOF\d segment/],
    ]);
  });

  describe('GIF', () => {
    refusesPayloads('x.gif', [
      [
        'PHP in a plain-text extension',
        () => hostile.gifWithExtension(0x01, hostile.GIF_TEXT_GRID, PHP),
        /"<\?php" in its plain text extension/,
      ],
      [
        'a script in an unknown extension',
        () => hostile.gifWithExtension(0x99, SCRIPT),
        /"<script" in its extension 0x99/,
      ],
      [
        'PHP in a graphic control extension longer than 4 bytes',
        () => hostile.gifWithExtension(0xf9, Buffer.concat([Buffer.alloc(4), PHP])),
        /"<\?php" in its graphic control extension/,
      ],
      ['PHP in the global color table', hostile.gifWithPhpInColorTable, /"<\?php" in its global color table/],
    ]);
  });

  describe('WebP', () => {
    refusesPayloads('x.webp', [
      ['PHP in an EXIF chunk', () => hostile.webpWithChunk('EXIF', PHP), /"<\?php" in its EXIF chunk/],
      ['a script in an XMP chunk', () => hostile.webpWithChunk('XMP ', SCRIPT), /"<script" in its XMP chunk/],
      ['PHP in an ICCP chunk', () => hostile.webpWithChunk('ICCP', PHP), /"<\?php" in its ICCP chunk/],
      ['PHP in an unknown chunk', () => hostile.webpWithChunk('zZzZ', PHP), /"<\?php" in its zZzZ chunk/],
      ['PHP in a chunk of an animation frame', hostile.webpWithPayloadInFrame, /"<\?php" in its zZzZ chunk/],
      ['PHP after the 10 bytes of VP8X', hostile.webpWithLongHeader, /"<\?php" in its VP8X chunk/],
    ]);

    it('refuses a chunk that overruns the RIFF chunk with UPLOAD_MALFORMED', () =>
      expectRefusal(hostile.webpWithOverrunningChunk, 'x.webp', 'UPLOAD_MALFORMED', /"EXIF" chunk .* overruns/));

    it.each([
      ['with EXIF, ICC and XMP chunks', corpus.cleanWebpWithMetadata],
      ['animated (ANIM, ANMF frames)', corpus.cleanAnimatedWebp],
    ])('accepts a WebP %s', async (_name, build) => {
      expect(await guard.inspect(build(), 'x.webp')).toEqual({
        mimeType: 'image/webp',
        extension: 'webp',
        ...corpus.IMAGE,
      });
    });
  });

  describe('AVIF', () => {
    refusesPayloads('x.avif', [
      ['PHP in the Exif item', hostile.avifWithPhpInExif, /"<\?php" in its Exif item/],
      ['a script in the XMP item', hostile.avifWithScriptInXmp, /"<script" in its mime item \(application\/rdf\+xml\)/],
      ['PHP in a free box', hostile.avifWithPhpInFreeBox, /"<\?php" in its free box/],
    ]);

    it.each([
      [
        'an Exif item outside the file',
        () => hostile.avifWithItemsAt([{ type: 'Exif', base: 0x7fff_0000, length: 16 }]),
        /the Exif item lies outside the file/,
      ],
      [
        'metadata items that overlap to read the file twice',
        () =>
          hostile.avifWithItemsAt([
            { type: 'Exif', base: 0, length: 0 },
            { type: 'mime', base: 0, length: 0 },
          ]),
        /the metadata items declare more bytes than the file holds/,
      ],
    ])('refuses %s with UPLOAD_MALFORMED', (_name, build, message) =>
      expectRefusal(build, 'x.avif', 'UPLOAD_MALFORMED', message),
    );

    it('accepts an AVIF with Exif and XMP items and an ICC profile', async () => {
      expect(await guard.inspect(corpus.cleanAvifWithMetadata(), 'x.avif')).toEqual({
        mimeType: 'image/avif',
        extension: 'avif',
        ...corpus.IMAGE,
      });
    });
  });
});
