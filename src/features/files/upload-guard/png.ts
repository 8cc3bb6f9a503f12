import { UploadTrailingData } from '../upload.errors.ts';
import { PayloadScanner } from './payload-scanner.ts';
import { admitPixels, malformed, scanInflated, scanRaw, type Dimensions, type RasterInput } from './raster.ts';

const SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
const MAX_CHUNK = 0x7fffffff;
/** A text chunk's keyword is 1–79 bytes; its header (keyword, flags, language, translation) fits in this. */
const TEXT_HEADER = 4096;
/**
 * Compressed pixels (IDAT, and APNG's frame data fdAT): random-looking bytes in which a four-byte marker (`\x7fELF`)
 * turns up by chance in large images, so they are stepped over.
 */
const PIXEL_DATA = new Set(['IDAT', 'fdAT']);
/**
 * Chunks of numbers (a palette, transparency, colours, sizes, times, APNG frame control): scanned, but `MZ` at their
 * start is a value (a palette entry, a 16-bit background), not a program's first bytes.
 */
const NUMERIC = new Set([
  'PLTE',
  'tRNS',
  'cHRM',
  'gAMA',
  'sBIT',
  'sRGB',
  'bKGD',
  'hIST',
  'pHYs',
  'tIME',
  'acTL',
  'fcTL',
  'cICP',
  'cLLI',
  'mDCV',
]);

/**
 * Walks a PNG's chunks from the signature to IEND: dimensions from IHDR (which must come first, so a bomb is
 * refused before the rest is read), text chunks scanned as text (compressed ones inflated, refused past a bound),
 * every other chunk but the pixel data scanned as binary: a palette, a private or an unknown chunk carries a
 * payload as well as a text chunk does. Bytes after IEND are refused.
 */
export async function walkPng(input: RasterInput): Promise<Dimensions> {
  const c = input.cursor;
  if (!(await c.take(8)).equals(SIGNATURE)) throw malformed(input, 'no PNG signature');
  let dimensions: Dimensions | undefined;
  for (;;) {
    const at = c.pos;
    const length = await c.u32be();
    const type = (await c.take(4)).toString('latin1');
    if (length > MAX_CHUNK) {
      throw malformed(input, `chunk ${JSON.stringify(type)} at byte ${at} has the length ${length}`);
    }
    if (!/^[A-Za-z]{4}$/.test(type)) throw malformed(input, `an invalid chunk type at byte ${at + 4}`);
    if (dimensions === undefined && type !== 'IHDR') throw malformed(input, `the first chunk is ${type}, not IHDR`);
    if (dimensions !== undefined && type === 'IHDR') throw malformed(input, 'a second IHDR chunk');
    if (type === 'IHDR') dimensions = await readHeader(input, length);
    else await scanChunk(input, type, length);
    c.skip(4);
    if (type === 'IEND') {
      if (c.remaining > 0) {
        throw new UploadTrailingData({ mimeType: input.mimeType, endMarker: 'IEND chunk', bytes: c.remaining });
      }
      return dimensions!;
    }
  }
}

async function readHeader(input: RasterInput, length: number): Promise<Dimensions> {
  if (length !== 13) throw malformed(input, `an IHDR chunk of ${length} bytes`);
  const header = await input.cursor.take(13);
  const width = header.readUInt32BE(0);
  const height = header.readUInt32BE(4);
  if (width > MAX_CHUNK || height > MAX_CHUNK) throw malformed(input, `IHDR declares ${width} × ${height} pixels`);
  return admitPixels(input, width, height);
}

async function scanChunk(input: RasterInput, type: string, length: number): Promise<void> {
  const location = `${type} chunk`;
  if (type === 'tEXt' || type === 'iTXt' || type === 'zTXt') await scanText(input, type, length, location);
  else if (PIXEL_DATA.has(type)) input.cursor.skip(length);
  else await scanRaw(input, length, new PayloadScanner(input.mimeType, location, false, NUMERIC.has(type) ? [] : [0]));
}

/**
 * tEXt is `keyword NUL text`; zTXt `keyword NUL method compressed`; iTXt `keyword NUL flag method language NUL
 * translated-keyword NUL text`, the text compressed when the flag is 1. Headers and plain text are scanned as
 * they are, compressed text once inflated.
 */
async function scanText(input: RasterInput, type: string, length: number, location: string): Promise<void> {
  const c = input.cursor;
  const head = await c.peek(Math.min(length, TEXT_HEADER));
  const keywordEnd = head.indexOf(0);
  if (keywordEnd < 1) throw malformed(input, `the ${location} at byte ${c.pos - 8} has no keyword`);
  const text = (starts: number[]) => new PayloadScanner(input.mimeType, location, true, starts);
  let headerLength = keywordEnd + 1;
  if (type === 'tEXt' || (type === 'iTXt' && head[headerLength] === 0)) {
    return scanRaw(input, length, text([0, headerLength]));
  }
  if (type === 'zTXt') headerLength += 1;
  else {
    const language = head.indexOf(0, headerLength + 2);
    const translated = language === -1 ? -1 : head.indexOf(0, language + 1);
    if (translated === -1) throw malformed(input, `the ${location} has an unterminated header`);
    headerLength = translated + 1;
  }
  if (headerLength > length) throw malformed(input, `the ${location} is shorter than its header`);
  await scanRaw(input, headerLength, text([0]));
  await scanInflated(input, length - headerLength, text([0]), location);
}
