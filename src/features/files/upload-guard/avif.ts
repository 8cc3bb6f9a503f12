import { WINDOW } from './cursor.ts';
import { admitPixels, malformed, type Dimensions, type RasterInput } from './raster.ts';

interface Box {
  type: string;
  /** Offsets of the box's content in the buffer it was read from (`meta` is a full box: 4 bytes of flags first). */
  start: number;
  end: number;
}

/**
 * Checks an AVIF's top-level boxes (ftyp first, each within the file) and reads the largest image spatial extents
 * (`ispe`) of its `meta` box: the largest image the file declares, checked against the pixel cap.
 */
export async function walkAvif(input: RasterInput): Promise<Dimensions> {
  const c = input.cursor;
  let meta: Buffer | undefined;
  for (let first = true; c.remaining > 0; first = false) {
    const header = await c.take(Math.min(8, c.remaining));
    if (header.length < 8) throw malformed(input, `a truncated box header at byte ${c.pos - header.length}`);
    const type = header.toString('latin1', 4, 8);
    const size = await boxSize(input, header.readUInt32BE(0), c.pos - 8);
    if (first && type !== 'ftyp') throw malformed(input, `the first box is ${JSON.stringify(type)}, not ftyp`);
    if (type === 'meta' && meta === undefined) {
      if (size > WINDOW) throw malformed(input, `a meta box of ${size} bytes`);
      meta = await c.take(size);
    } else c.skip(size);
  }
  if (!meta) throw malformed(input, 'no meta box');
  return largestExtent(input, meta);
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

function children(input: RasterInput, data: Buffer, start: number, end: number): Box[] {
  const boxes: Box[] = [];
  for (let at = start; at < end;) {
    const size = at + 8 <= end ? data.readUInt32BE(at) : 0;
    if (size < 8 || at + size > end) throw malformed(input, 'a box inside meta overruns its parent');
    boxes.push({ type: data.toString('latin1', at + 4, at + 8), start: at + 8, end: at + size });
    at += size;
  }
  return boxes;
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
