import { PayloadScanner } from './payload-scanner.ts';
import { malformed, printable, type RasterInput } from './raster.ts';

/** A box inside a buffer: its type and the offsets of its content (a full box's 4 bytes of flags included). */
export interface Box {
  type: string;
  start: number;
  end: number;
}

/** A metadata item: Exif, or a `mime` item such as XMP (scanned as text). */
interface Item {
  location: string;
  text: boolean;
}

/** A metadata item and the byte ranges that hold it. */
interface Located extends Item {
  /** 0: ranges of the file; 1: ranges of the `idat` box. */
  method: number;
  extents: { offset: number; length: number }[];
}

/** Metadata items rarely have more than one extent; a file naming more than this many in all is refused. */
const MAX_EXTENTS = 64;
/** The field sizes `iloc` allows (bytes). */
const FIELD_SIZES = new Set([0, 4, 8]);

/** The boxes in `data[start, end)`, each required to fit inside it. */
export function children(input: RasterInput, data: Buffer, start: number, end: number): Box[] {
  const boxes: Box[] = [];
  for (let at = start; at < end;) {
    const size = at + 8 <= end ? data.readUInt32BE(at) : 0;
    if (size < 8 || at + size > end) throw malformed(input, 'a box inside meta overruns its parent');
    boxes.push({ type: printable(data.toString('latin1', at + 4, at + 8)), start: at + 8, end: at + size });
    at += size;
  }
  return boxes;
}

/**
 * Scans the metadata items the `meta` box declares (`iinf`) where `iloc` puts them: in the file (usually `mdat`,
 * read in windows) or in `idat`. Items kept in other files or built from other items are not read. The bytes read
 * in all are at most the file's size and the ranges at most MAX_EXTENTS, so overlapping ranges cannot make the
 * scan longer than reading the file once.
 */
export async function scanMetadataItems(input: RasterInput, meta: Buffer): Promise<void> {
  const boxes = children(input, meta, 4, meta.length);
  const iinf = boxes.find((b) => b.type === 'iinf');
  const iloc = boxes.find((b) => b.type === 'iloc');
  if (!iinf || !iloc) return;
  const wanted = metadataItems(input, meta, iinf);
  if (wanted.size === 0) return;
  const idat = boxes.find((b) => b.type === 'idat');
  let budget = input.cursor.size;
  for (const item of locate(input, meta, iloc, wanted)) {
    const scanner = new PayloadScanner(input.mimeType, item.location, item.text);
    for (const { offset, length } of item.extents) {
      if (item.method === 1) {
        if (!idat || offset > idat.end - idat.start) throw malformed(input, `the ${item.location} lies outside idat`);
        const end = length === 0 ? idat.end : idat.start + offset + length;
        if (end > idat.end) throw malformed(input, `the ${item.location} lies outside idat`);
        scanner.feed(meta.subarray(idat.start + offset, end));
        continue;
      }
      const size = input.cursor.size;
      const n = length === 0 ? size - offset : length;
      if (offset > size || n > size - offset) throw malformed(input, `the ${item.location} lies outside the file`);
      budget -= n;
      if (budget < 0) throw malformed(input, 'the metadata items declare more bytes than the file holds');
      for await (const chunk of input.cursor.range(offset, n)) scanner.feed(chunk);
    }
    scanner.end();
  }
}

/** Bounds-checked big-endian reads inside one box. */
class Reader {
  constructor(
    private readonly input: RasterInput,
    private readonly data: Buffer,
    private pos: number,
    private readonly box: Box,
  ) {}

  private take(n: number): number {
    if (n > this.box.end - this.pos) throw malformed(this.input, `the ${this.box.type} box is truncated`);
    const at = this.pos;
    this.pos += n;
    return at;
  }

  skip(n: number): void {
    this.take(n);
  }

  u16 = () => this.data.readUInt16BE(this.take(2));
  u32 = () => this.data.readUInt32BE(this.take(4));

  fourcc(): string {
    const at = this.take(4);
    return printable(this.data.toString('latin1', at, at + 4));
  }

  /** An unsigned field of 0, 4 or 8 bytes (a 64-bit value past 2^53 is only ever compared with the file size). */
  uint(bytes: number): number {
    if (bytes === 0) return 0;
    return bytes === 4 ? this.u32() : Number(this.data.readBigUInt64BE(this.take(8)));
  }

  /** A NUL-terminated string (to the box's end when unterminated). */
  string(): string {
    const nul = this.data.indexOf(0, this.pos);
    const stop = nul === -1 || nul > this.box.end ? this.box.end : nul;
    const text = this.data.toString('utf8', this.pos, stop);
    this.pos = Math.min(stop + 1, this.box.end);
    return text;
  }

  /** A full box's version (its flags skipped). */
  version(): number {
    return this.data[this.take(4)]!;
  }

  get at(): number {
    return this.pos;
  }
}

/** The metadata items among `iinf`'s entries, by item id: Exif, and `mime` items (XMP among them, scanned as text). */
function metadataItems(input: RasterInput, meta: Buffer, iinf: Box): Map<number, Item> {
  const r = new Reader(input, meta, iinf.start, iinf);
  r.skip(r.version() === 0 ? 2 : 4);
  const items = new Map<number, Item>();
  for (const infe of children(input, meta, r.at, iinf.end).filter((b) => b.type === 'infe')) {
    const e = new Reader(input, meta, infe.start, infe);
    const version = e.version();
    const id = version === 3 ? e.u32() : e.u16();
    e.skip(2);
    // Before version 2 an entry has no type: a name, then a content type, as a `mime` item has.
    const type = version < 2 ? 'mime' : e.fourcc();
    e.string();
    if (type === 'Exif') items.set(id, { location: 'Exif item', text: false });
    if (type === 'mime') {
      const contentType = printable(e.string().slice(0, 64));
      items.set(id, { location: `mime item (${contentType})`, text: contentType.includes('xml') });
    }
  }
  return items;
}

/** Where `iloc` puts the wanted items (ISO/IEC 14496-12 8.11.3, versions 0 to 2). */
function locate(input: RasterInput, meta: Buffer, iloc: Box, wanted: Map<number, Item>): Located[] {
  const r = new Reader(input, meta, iloc.start, iloc);
  const version = r.version();
  const sizes = r.u16();
  const [offsetSize, lengthSize, baseSize] = [sizes >> 12, (sizes >> 8) & 15, (sizes >> 4) & 15];
  const indexSize = version >= 1 ? sizes & 15 : 0;
  if (![offsetSize, lengthSize, baseSize, indexSize].every((s) => FIELD_SIZES.has(s))) {
    throw malformed(input, 'the iloc box declares a field size other than 0, 4 or 8 bytes');
  }
  const located: Located[] = [];
  let extents = 0;
  for (let count = version < 2 ? r.u16() : r.u32(); count > 0; count--) {
    const id = version < 2 ? r.u16() : r.u32();
    const method = version >= 1 ? r.u16() & 15 : 0;
    const external = r.u16() !== 0;
    const base = r.uint(baseSize);
    const n = r.u16();
    const item = wanted.get(id);
    if (!item || external || method > 1) {
      r.skip(n * (indexSize + offsetSize + lengthSize));
      continue;
    }
    extents += n;
    if (extents > MAX_EXTENTS) throw malformed(input, `metadata items in more than ${MAX_EXTENTS} ranges`);
    const ranges = Array.from({ length: n }, () => {
      r.skip(indexSize);
      return { offset: base + r.uint(offsetSize), length: r.uint(lengthSize) };
    });
    located.push({ ...item, method, extents: ranges });
  }
  return located;
}
