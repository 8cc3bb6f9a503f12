import { UploadTrailingData } from '../upload.errors.ts';
import { PayloadScanner } from './payload-scanner.ts';
import { admitPixels, malformed, printable, scanRaw, type Dimensions, type RasterInput } from './raster.ts';

/** Coded pixels (lossy, lossless, alpha): random-looking bytes, stepped over as PNG's IDAT is. */
const IMAGE_DATA = new Set(['VP8 ', 'VP8L', 'ALPH']);
/** Chunks of flags and numbers: scanned, but `MZ` at their start is a value. */
const NUMERIC = new Set(['VP8X', 'ANIM']);
/** An animation frame: X, Y, width, height, duration and flags, then the frame's own chunks. */
const ANMF = 'ANMF';
const ANMF_HEADER = 16;

/**
 * Walks a WebP's RIFF chunks: dimensions from the first one (VP8, VP8L or VP8X), every chunk but the coded image
 * data scanned (EXIF, ICCP, ANIM, unknown chunks as binary, XMP as text), animation frames walked for the chunks
 * they hold. A chunk that overruns the RIFF chunk is malformed; bytes after it are refused.
 */
export async function walkWebp(input: RasterInput): Promise<Dimensions> {
  const c = input.cursor;
  const riff = await c.take(12);
  if (riff.toString('latin1', 0, 4) !== 'RIFF' || riff.toString('latin1', 8, 12) !== 'WEBP') {
    throw malformed(input, 'no RIFF/WEBP header');
  }
  const end = 8 + riff.readUInt32LE(4);
  if (end > c.size) throw malformed(input, `the RIFF header declares ${end} bytes, the file has ${c.size}`);
  let dimensions: Dimensions | undefined;
  await walkChunks(input, end, async (type, size) => {
    if (dimensions === undefined) dimensions = readFrame(input, type, await c.peek(Math.min(10, size)));
    await readChunk(input, type, size);
  });
  if (dimensions === undefined) throw malformed(input, 'no chunk after the RIFF header');
  if (c.size > end + (end % 2)) {
    throw new UploadTrailingData({ mimeType: input.mimeType, endMarker: 'RIFF chunk', bytes: c.size - end });
  }
  return dimensions;
}

/**
 * Hands each chunk up to `end` to `each` with the cursor on its payload; `each` moves the cursor past it. A pad
 * byte follows an odd payload (a last one may lack it).
 */
async function walkChunks(
  input: RasterInput,
  end: number,
  each: (type: string, size: number) => Promise<void>,
): Promise<void> {
  const c = input.cursor;
  while (c.pos < end) {
    const at = c.pos;
    if (end - at < 8) throw malformed(input, `a truncated chunk header at byte ${at}`);
    const header = await c.take(8);
    const type = printable(header.toString('latin1', 0, 4));
    const size = header.readUInt32LE(4);
    if (size > end - c.pos)
      throw malformed(input, `the ${JSON.stringify(type)} chunk at byte ${at} overruns its parent`);
    await each(type, size);
    if (size % 2 === 1 && c.pos < end) c.skip(1);
  }
}

/** Steps over image data, walks a top-level frame's chunks, scans any other chunk (a nested ANMF is one). */
async function readChunk(input: RasterInput, type: string, size: number, inFrame = false): Promise<void> {
  const c = input.cursor;
  if (IMAGE_DATA.has(type)) return c.skip(size);
  if (type === ANMF && !inFrame && size >= ANMF_HEADER) {
    c.skip(ANMF_HEADER);
    return walkChunks(input, c.pos + size - ANMF_HEADER, (inner, n) => readChunk(input, inner, n, true));
  }
  const scanner = new PayloadScanner(
    input.mimeType,
    `${type.trimEnd()} chunk`,
    type === 'XMP ',
    NUMERIC.has(type) ? [] : [0],
  );
  await scanRaw(input, size, scanner);
}

function readFrame(input: RasterInput, type: string, frame: Buffer): Dimensions {
  if (type === 'VP8 ' && frame.length >= 10 && frame.readUIntBE(3, 3) === 0x9d012a) {
    return admitPixels(input, frame.readUInt16LE(6) & 0x3fff, frame.readUInt16LE(8) & 0x3fff);
  }
  if (type === 'VP8L' && frame.length >= 5 && frame[0] === 0x2f) {
    const bits = frame.readUInt32LE(1);
    return admitPixels(input, (bits & 0x3fff) + 1, ((bits >>> 14) & 0x3fff) + 1);
  }
  if (type === 'VP8X' && frame.length >= 10) {
    return admitPixels(input, frame.readUIntLE(4, 3) + 1, frame.readUIntLE(7, 3) + 1);
  }
  throw malformed(input, `the first chunk ${JSON.stringify(type)} is not a valid VP8, VP8L or VP8X header`);
}
