import { UploadTrailingData } from '../upload.errors.ts';
import { PayloadScanner } from './payload-scanner.ts';
import { admitPixels, hex, malformed, printable, scanRaw, type Dimensions, type RasterInput } from './raster.ts';

const TRAILER = 0x3b;
const IMAGE = 0x2c;
const EXTENSION = 0x21;
const PLAIN_TEXT = 0x01;
const GRAPHIC_CONTROL = 0xf9;
const COMMENT = 0xfe;
const APPLICATION = 0xff;
/** A plain-text extension's first sub-block is its 12-byte text grid; the text follows. */
const TEXT_GRID = 12;

/**
 * Walks a GIF's blocks from the header to the trailer: dimensions of the logical screen and of every frame, color
 * tables and every extension scanned (comments and plain text as text), image data stepped over sub-block by
 * sub-block. Bytes after the trailer are refused: that is where a GIF/JAR or GIF/ZIP polyglot keeps its archive.
 */
export async function walkGif(input: RasterInput): Promise<Dimensions> {
  const c = input.cursor;
  const signature = (await c.take(6)).toString('latin1');
  if (signature !== 'GIF87a' && signature !== 'GIF89a') throw malformed(input, 'no GIF87a/GIF89a header');
  const screen = admitPixels(input, await c.u16le(), await c.u16le());
  const packed = await c.u8();
  c.skip(2);
  await scanColorTable(input, packed, 'global color table');
  for (;;) {
    const at = c.pos;
    const block = await c.u8();
    if (block === TRAILER) break;
    if (block === IMAGE) await skipImage(input);
    else if (block === EXTENSION) await readExtension(input);
    else throw malformed(input, `an unknown block 0x${hex(block)} at byte ${at}`);
  }
  if (c.remaining > 0) {
    throw new UploadTrailingData({ mimeType: input.mimeType, endMarker: 'trailer (0x3B)', bytes: c.remaining });
  }
  return screen;
}

/** A color table holds up to 768 bytes of anything: scanned, `MZ` at its start being a color. */
async function scanColorTable(input: RasterInput, packed: number, location: string): Promise<void> {
  if (!(packed & 0x80)) return;
  const n = 3 * (1 << ((packed & 0x07) + 1));
  await scanRaw(input, n, new PayloadScanner(input.mimeType, location, false, []));
}

async function skipImage(input: RasterInput): Promise<void> {
  const c = input.cursor;
  c.skip(4);
  // A frame larger than the screen is decoded at its own size: it is held to the same cap.
  admitPixels(input, await c.u16le(), await c.u16le());
  await scanColorTable(input, await c.u8(), 'local color table');
  c.skip(1);
  await subBlocks(input);
}

async function readExtension(input: RasterInput): Promise<void> {
  const label = await input.cursor.u8();
  await subBlocks(input, extensionScanner(input, label, await applicationId(input, label)));
}

/** The identifier and authentication code of an application extension (bytes 1–11 of its first sub-block). */
async function applicationId(input: RasterInput, label: number): Promise<string> {
  if (label !== APPLICATION) return '';
  const c = input.cursor;
  return printable((await c.peek(Math.min(12, c.remaining))).toString('latin1', 1));
}

/** Comments and plain text are text; XMP in an application extension too; the rest (and unknown labels) binary. */
function extensionScanner(input: RasterInput, label: number, id: string): PayloadScanner {
  const scan = (location: string, text: boolean, starts?: number[]) =>
    new PayloadScanner(input.mimeType, location, text, starts);
  if (label === COMMENT) return scan('comment extension', true);
  if (label === PLAIN_TEXT) return scan('plain text extension', true, [0, TEXT_GRID]);
  if (label === GRAPHIC_CONTROL) return scan('graphic control extension', false, []);
  if (label === APPLICATION) return scan(`application extension (${id})`, id === 'XMP DataXMP', [0, 11]);
  return scan(`extension 0x${hex(label)}`, false);
}

/** Steps over a chain of data sub-blocks (length byte, data) up to its terminator, feeding `scanner` if given. */
async function subBlocks(input: RasterInput, scanner?: PayloadScanner): Promise<void> {
  const c = input.cursor;
  for (let size = await c.u8(); size !== 0; size = await c.u8()) {
    if (scanner) await c.stream(size, (chunk) => scanner.feed(chunk));
    else c.skip(size);
  }
  scanner?.end();
}
