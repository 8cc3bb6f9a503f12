import { WINDOW } from './cursor.ts';
import { PayloadScanner } from './payload-scanner.ts';
import { admitPixels, malformed, printable, scanBuffer, scanRaw, type Dimensions, type RasterInput } from './raster.ts';
import { children, scanMetadataItems, type Box } from './avif-items.ts';

/**
 * Checks an AVIF's top-level boxes (ftyp first, each within the file) and reads the largest image spatial extents
 * (`ispe`) of its `meta` box: the largest image the file declares, checked against the pixel cap. Every box but
 * `mdat` is scanned as binary (`meta` whole, with its properties and `idat`; `free`, `uuid` and unknown boxes,
 * where a payload would otherwise hide). `mdat` holds coded pixels, stepped over as PNG's IDAT is, except the
 * byte ranges of metadata items (Exif, XMP), which are read there and scanned.
 */
export async function walkAvif(input: RasterInput): Promise<Dimensions> {
  const c = input.cursor;
  let meta: Buffer | undefined;
  for (let first = true; c.remaining > 0; first = false) {
    const header = await c.take(Math.min(8, c.remaining));
    if (header.length < 8) throw malformed(input, `a truncated box header at byte ${c.pos - header.length}`);
    const type = printable(header.toString('latin1', 4, 8));
    const size = await boxSize(input, header.readUInt32BE(0), c.pos - 8);
    if (first && type !== 'ftyp') throw malformed(input, `the first box is ${JSON.stringify(type)}, not ftyp`);
    if (type === 'meta' && meta === undefined) {
      if (size > WINDOW) throw malformed(input, `a meta box of ${size} bytes`);
      meta = await c.take(size);
      scanBuffer(meta, new PayloadScanner(input.mimeType, 'meta box', false, []));
    } else if (type === 'mdat') c.skip(size);
    else await scanRaw(input, size, new PayloadScanner(input.mimeType, `${type} box`, false));
  }
  if (!meta) throw malformed(input, 'no meta box');
  const dimensions = largestExtent(input, meta);
  await scanMetadataItems(input, meta);
  return dimensions;
}

/** The content size of a box whose header ends at the cursor (32-bit size, 64-bit size, or 0: to the end). */
async function boxSize(input: RasterInput, size32: number, at: number): Promise<number> {
  const c = input.cursor;
  if (size32 === 0) return c.remaining;
  if (size32 === 1) {
    const size = Number((await c.take(8)).readBigUInt64BE(0));
    if (size < 16 || size - 16 > c.remaining) throw malformed(input, `the box at byte ${at} declares ${size} bytes`);
    return size - 16;
  }
  if (size32 < 8 || size32 - 8 > c.remaining) throw malformed(input, `the box at byte ${at} declares ${size32} bytes`);
  return size32 - 8;
}

function largestExtent(input: RasterInput, meta: Buffer): Dimensions {
  let parent: Box = { type: 'meta', start: 4, end: meta.length };
  for (const type of ['iprp', 'ipco']) {
    const box = children(input, meta, parent.start, parent.end).find((b) => b.type === type);
    if (!box) throw malformed(input, `no ${type} box in meta`);
    parent = box;
  }
  let largest: Dimensions | undefined;
  for (const ispe of children(input, meta, parent.start, parent.end).filter((b) => b.type === 'ispe')) {
    if (ispe.end - ispe.start < 12) throw malformed(input, 'an ispe box shorter than 12 bytes');
    const d = admitPixels(input, meta.readUInt32BE(ispe.start + 4), meta.readUInt32BE(ispe.start + 8));
    if (!largest || d.width * d.height > largest.width * largest.height) largest = d;
  }
  if (!largest) throw malformed(input, 'no image spatial extents (ispe) in meta');
  return largest;
}
