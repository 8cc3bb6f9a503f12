import { UploadTrailingData } from '../upload.errors.ts';
import { Truncated, type Cursor } from './cursor.ts';
import { PayloadScanner } from './payload-scanner.ts';
import { admitPixels, hex, malformed, scanBuffer, scanRaw, type Dimensions, type RasterInput } from './raster.ts';

/** Start-of-frame markers (baseline, progressive, lossless, arithmetic): they carry the dimensions. */
const SOF = new Set([0xc0, 0xc1, 0xc2, 0xc3, 0xc5, 0xc6, 0xc7, 0xc9, 0xca, 0xcb, 0xcd, 0xce, 0xcf]);
const SOI = 0xd8;
const EOI = 0xd9;
const SOS = 0xda;
const COM = 0xfe;
/** A multi-picture (MPF) JPEG may carry this many images after its first one; beyond, it is refused. */
const MAX_IMAGES = 16;
const XMP = ['http://ns.adobe.com/xap/1.0/', 'http://ns.adobe.com/xmp/extension/'];
/** Names of the marker segments that are not SOFn, APPn or JPGn, for messages. */
const NAMES = new Map([
  [0xc4, 'DHT'],
  [0xc8, 'JPG'],
  [0xcc, 'DAC'],
  [0xda, 'SOS'],
  [0xdb, 'DQT'],
  [0xdc, 'DNL'],
  [0xdd, 'DRI'],
  [0xde, 'DHP'],
  [0xdf, 'EXP'],
  [COM, 'COM'],
]);
/**
 * Segments of tables and numbers (frame and scan headers, Huffman, arithmetic and quantisation tables, restart
 * interval, line count): scanned, but `MZ` at their start is a value, not a program's first bytes.
 */
const TABLES = new Set([...SOF, 0xc4, 0xcc, 0xda, 0xdb, 0xdc, 0xdd, 0xde, 0xdf]);

const isRst = (m: number) => m >= 0xd0 && m <= 0xd7;

/**
 * Walks a JPEG from SOI to EOI: dimensions from the frame header, the payload of every marker segment scanned (COM
 * as text; APPn, JPGn, tables and headers as binary), entropy-coded data stepped over (FF00 stuffing, RST markers).
 * Bytes after EOI are refused, except further JPEGs announced by an MPF segment (the depth and gain maps of phone
 * photos), each walked the same way.
 */
export async function walkJpeg(input: RasterInput): Promise<Dimensions> {
  const c = input.cursor;
  const first = await walkOne(input);
  for (let images = 1; c.remaining > 0; images++) {
    const another = first.mpf && images < MAX_IMAGES && (await startsWithSoi(c));
    if (!another) {
      throw new UploadTrailingData({ mimeType: input.mimeType, endMarker: 'EOI marker', bytes: c.remaining });
    }
    await walkOne(input);
  }
  return first.dimensions;
}

async function startsWithSoi(c: Cursor): Promise<boolean> {
  return (await c.have(2)) && (await c.peek(2)).readUInt16BE(0) === 0xff00 + SOI;
}

async function walkOne(input: RasterInput): Promise<{ dimensions: Dimensions; mpf: boolean }> {
  const c = input.cursor;
  if ((await c.u16be()) !== 0xff00 + SOI) throw malformed(input, 'it does not start with an SOI marker');
  let dimensions: Dimensions | undefined;
  let mpf = false;
  for (;;) {
    const marker = await nextMarker(input);
    if (marker === EOI) {
      if (!dimensions) throw malformed(input, 'no frame header (SOF) before the EOI marker');
      return { dimensions, mpf };
    }
    if (isRst(marker) || marker === 0x01) continue;
    if (marker === SOI) throw malformed(input, `a second SOI marker at byte ${c.pos - 2}`);
    const length = await c.u16be();
    if (length < 2) throw malformed(input, `segment FF${hex(marker)} has the length ${length}`);
    if (SOF.has(marker)) dimensions = await readFrame(input, marker, length - 2);
    else if (marker >= 0xe0 && marker <= 0xef) mpf = (await scanApp(input, marker, length - 2)) || mpf;
    else await scanRaw(input, length - 2, segmentScanner(input, marker));
    if (marker === SOS) await skipEntropyCoded(c);
  }
}

/** The next marker byte: 0xFF, any fill 0xFF bytes, then the marker. */
async function nextMarker(input: RasterInput): Promise<number> {
  const c = input.cursor;
  if ((await c.u8()) !== 0xff) throw malformed(input, `no marker at byte ${c.pos - 1}`);
  let marker = await c.u8();
  while (marker === 0xff) marker = await c.u8();
  if (marker === 0x00) throw malformed(input, `a stuffed byte outside entropy-coded data at byte ${c.pos - 2}`);
  return marker;
}

/** A frame header's dimensions; the bytes a hostile length adds after its components are scanned too. */
async function readFrame(input: RasterInput, marker: number, n: number): Promise<Dimensions> {
  if (n < 6) throw malformed(input, `a frame header of ${n} bytes`);
  const frame = await input.cursor.take(n);
  scanBuffer(frame, segmentScanner(input, marker));
  return admitPixels(input, frame.readUInt16BE(3), frame.readUInt16BE(1));
}

const scanner = (input: RasterInput, location: string, text: boolean, starts?: number[]) =>
  new PayloadScanner(input.mimeType, location, text, starts);

/** The scanner of a segment other than APPn: COM is text, the rest binary. */
function segmentScanner(input: RasterInput, marker: number): PayloadScanner {
  const name = SOF.has(marker)
    ? `SOF${marker - 0xc0}`
    : marker >= 0xf0 && marker <= 0xfd
      ? `JPG${marker - 0xf0}`
      : (NAMES.get(marker) ?? `FF${hex(marker)}`);
  return scanner(input, `${name} segment`, marker === COM, TABLES.has(marker) ? [] : [0]);
}

/** Scans an APPn payload (EXIF, XMP, ICC, …); true when it is an MPF index of further images. */
async function scanApp(input: RasterInput, marker: number, n: number): Promise<boolean> {
  const head = await input.cursor.peek(Math.min(n, 64));
  const nul = head.indexOf(0);
  const id = nul > 0 && /^[\x20-\x7e]+$/.test(head.toString('latin1', 0, nul)) ? head.toString('latin1', 0, nul) : '';
  let body = nul + 1;
  while (nul >= 0 && head[body] === 0) body++;
  const location = `APP${marker - 0xe0} segment${id ? ` (${id})` : ''}`;
  const text = XMP.includes(id);
  await scanRaw(input, n, scanner(input, location, text, id ? [0, body] : [0]));
  return marker === 0xe2 && id === 'MPF';
}

/**
 * Steps over entropy-coded data to the next marker, leaving the cursor on its 0xFF: FF00 is a stuffed byte,
 * FFD0–FFD7 a restart marker, FFFF a fill byte before a marker.
 */
async function skipEntropyCoded(c: Cursor): Promise<void> {
  for (;;) {
    if (!(await c.have(2))) throw new Truncated(c.size);
    const view = await c.view();
    let i = view.indexOf(0xff);
    while (i !== -1 && i + 1 < view.length) {
      const next = view[i + 1]!;
      if (next === 0xff) i += 1;
      else if (next === 0x00 || isRst(next)) i = view.indexOf(0xff, i + 2);
      else {
        c.pos += i;
        return;
      }
    }
    c.pos += i === -1 ? view.length : i;
  }
}
