import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as corpus from '../../../../test/fixtures/uploads/corpus.ts';
import { uploadGuard } from '../../../../test/fixtures/uploads/guard.ts';
import { DEFAULT_UPLOAD_POLICY } from './catalogue.ts';

let guard: Awaited<ReturnType<typeof uploadGuard>>;
beforeAll(async () => {
  guard = await uploadGuard();
});
afterAll(() => guard.remove());

const image = corpus.IMAGE;
type Row = [name: string, build: () => Buffer | Promise<Buffer>, file: string, message: RegExp, declared?: string];

/** Hostile and broken files by the code that must refuse them; the declared type follows the extension. */
const REFUSALS: [code: string, rows: Row[]][] = [
  [
    'UPLOAD_EMBEDDED_PAYLOAD',
    [
      ['a JPEG with <script> after EOI', corpus.jpegWithScriptAfterEoi, 'x.jpg', /has \d+ bytes after its EOI marker/],
      ['a JPEG with PHP in a COM segment', corpus.jpegWithPhpComment, 'x.jpg', /carries "<\?php" in its COM segment/],
      ['a JPEG with a file after EOI, no MPF', () => corpus.multiPictureJpeg(false), 'x.jpg', /after its EOI marker/],
      ['a PNG with PHP in a tEXt chunk', corpus.pngWithPhpText, 'x.png', /carries "<\?php" in its tEXt chunk/],
      ['a PNG with a script in zTXt', corpus.pngWithScriptInZtxt, 'x.png', /carries "<script" in its zTXt chunk/],
      ['a PNG with bytes after IEND', corpus.pngWithBytesAfterIend, 'x.png', /has 17 bytes after its IEND chunk/],
      ['a GIF/JAR polyglot', corpus.gifJarPolyglot, 'x.gif', /the image\/gif image has \d+ bytes after its trailer/],
    ],
  ],
  [
    'UPLOAD_EXECUTABLE',
    [
      ['a PE executable named .png', corpus.peExecutable, 'x.png', /is an executable \(Windows PE\/DOS MZ\)/],
      ['a PE executable named .txt', corpus.peExecutable, 'x.txt', /is an executable \(Windows PE\/DOS MZ\)/],
      ['an ELF executable named .png', corpus.elfExecutable, 'x.png', /is an executable \(ELF\)/],
      [
        'a shebang script named .txt',
        corpus.shebangScript,
        'x.txt',
        /executable \(script with a #! interpreter line\)/,
      ],
    ],
  ],
  [
    'UPLOAD_DIMENSIONS_EXCEEDED',
    [['a decompression bomb PNG', corpus.decompressionBombPng, 'x.png', /50000 × 50000 = 2500000000 pixels, over/]],
  ],
  [
    'UPLOAD_TYPE_MISMATCH',
    [
      [
        'a PNG declared JPEG as .png',
        corpus.cleanPng,
        'photo.png',
        /\.png does not match .* image\/jpeg/,
        'image/jpeg',
      ],
      [
        'a PNG declared JPEG as .jpg',
        corpus.cleanPng,
        'photo.jpg',
        /content is image\/png, not the declared image\/jpeg/,
      ],
      ['a PNG declared as text', corpus.cleanPng, 'x.txt', /content is image\/png, not the declared text\/plain/],
      ['bytes without a signature as PNG', () => Buffer.from('not an image'), 'x.png', /no image\/png signature found/],
      [
        'Latin-1 bytes as CSV',
        () => Buffer.from('a\nK\xf6ln\n', 'latin1'),
        'x.csv',
        /not text\/csv text: invalid UTF-8 at byte 3/,
      ],
      ['a text with a NUL byte', () => Buffer.from('abc\0def'), 'x.txt', /not text\/plain text: a NUL byte at byte 3/],
      ['an XHTML document as .svg', corpus.htmlNotSvg, 'x.svg', /the root element is <html>, not <svg>/],
    ],
  ],
  [
    'UPLOAD_MALFORMED',
    [
      [
        'JSON that does not parse',
        () => Buffer.from('{"a": 1,'),
        'x.json',
        /application\/json content is malformed: it is not JSON/,
      ],
      [
        'a truncated PNG',
        async () => (await corpus.cleanPng()).subarray(0, 200),
        'x.png',
        /it ends inside a structure/,
      ],
      [
        'a truncated JPEG',
        async () => (await corpus.cleanJpeg()).subarray(0, 4000),
        'x.jpg',
        /image\/jpeg content is malformed/,
      ],
      ['an SVG that is not well-formed', corpus.malformedSvg, 'x.svg', /image\/svg\+xml content is malformed/],
    ],
  ],
  [
    'UPLOAD_TYPE_NOT_ALLOWED',
    [
      [
        'a ZIP (not allowed by default)',
        corpus.plainZip,
        'x.zip',
        /the type "application\/zip" is not allowed for uploads/,
      ],
      ['a JPEG declared image/jpg', corpus.cleanJpeg, 'x.jpg', /the type "image\/jpg" is not allowed/, 'image/jpg'],
      ['a PNG named .exe', corpus.cleanPng, 'x.exe', /the extension \.exe is not allowed/, 'image/png'],
    ],
  ],
];

describe('inspectUpload', () => {
  describe('with clean files', () => {
    it.each([
      { file: 'photo.jpg', declared: 'image/jpeg', build: corpus.cleanJpeg, dimensions: image },
      { file: 'Photo.JPEG', declared: 'image/jpeg', build: corpus.cleanJpeg, dimensions: image },
      { file: 'image.png', declared: 'image/png', build: corpus.cleanPng, dimensions: image },
      { file: 'anim.gif', declared: 'image/gif', build: corpus.cleanGif, dimensions: image },
      { file: 'pic.webp', declared: 'image/webp', build: corpus.cleanWebp, dimensions: image },
      { file: 'pic.avif', declared: 'image/avif', build: corpus.cleanAvif, dimensions: image },
      { file: 'phone.jpg', declared: 'image/jpeg', build: () => corpus.multiPictureJpeg(), dimensions: image },
      { file: 'drawing.svg', declared: 'image/svg+xml', build: corpus.cleanSvg, dimensions: {} },
      { file: 'doc.pdf', declared: 'application/pdf', build: corpus.cleanPdf, dimensions: {} },
      { file: 'notes.txt', declared: 'Text/Plain; charset=utf-8', build: corpus.cleanText, dimensions: {} },
      { file: 'prices.csv', declared: 'text/csv', build: corpus.cleanCsv, dimensions: {} },
      { file: 'data.json', declared: 'application/json', build: corpus.cleanJson, dimensions: {} },
      { file: 'README.md', declared: 'text/markdown', build: corpus.cleanMarkdown, dimensions: {} },
      { file: 'beep.wav', declared: 'audio/wav', build: corpus.cleanWav, dimensions: {} },
    ])('accepts $file declared $declared', async ({ file, declared, build, dimensions }) => {
      const mimeType = declared.split(';')[0]!.toLowerCase();
      const extension = file.split('.').pop()!.toLowerCase();
      expect(await guard.inspect(build(), file, declared)).toEqual({ mimeType, extension, ...dimensions });
    });
  });

  describe.each(REFUSALS)('refusing with %s', (code, rows) => {
    it.each(rows)('refuses %s', async (_name, build, file, message, declared) => {
      const err = await guard.refusal(build(), file, declared);
      expect([err.code, err.message]).toEqual([code, expect.stringMatching(message)]);
    });
  });

  describe('error objects', () => {
    it('name the detected executable type in extensions and point at the body', async () => {
      const err = await guard.refusal(corpus.peExecutable(), 'x.png');
      expect([err.status, ...err.toErrorObjects()]).toEqual([
        422,
        expect.objectContaining({
          code: 'UPLOAD_EXECUTABLE',
          path: ['body'],
          extensions: { format: 'Windows PE/DOS MZ', detected: 'application/x-msdownload' },
        }),
      ]);
    });

    it('answer a type outside the allowlist with 415, pointing at the declared type', async () => {
      const err = await guard.refusal(corpus.plainZip(), 'x.zip');
      expect([err.status, err.options.path, err.options.extensions]).toEqual([
        415,
        ['mimeType'],
        { mimeType: 'application/zip' },
      ]);
    });
  });

  it('accepts an archive when the site allows it', async () => {
    const policy = { ...DEFAULT_UPLOAD_POLICY, allowedMimeTypes: ['application/zip'], allowedExtensions: ['ZIP'] };
    expect(await guard.inspect(corpus.plainZip(), 'x.zip', 'application/zip', policy)).toEqual({
      mimeType: 'application/zip',
      extension: 'zip',
    });
  });
});
