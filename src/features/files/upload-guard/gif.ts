import { UploadTrailingData } from '../upload.errors.ts';
import { PayloadScanner } from './payload-scanner.ts';
import { admitPixels, hex, malformed, type Dimensions, type RasterInput } from './raster.ts';

const TRAILER = 0x3b;
const IMAGE = 0x2c;
const EXTENSION = 0x21;
const COMMENT = 0xfe;
const APPLICATION = 0xff;

/**
 * Walks a GIF's blocks from the header to the trailer: dimensions of the logical screen and of every frame,
 * comment and application extensions scanned, image data stepped over sub-block by sub-block. Bytes after the
 * trailer are refused: that is where a GIF/JAR or GIF/ZIP polyglot keeps its archive.
 */
export async function walkGif(input: RasterInput): Promise<Dimensions> {
  const c = input.cursor;
  const signature = (await c.take(6)).toString('latin1');
  if (signature !== 'GIF87a' && signature !== 'GIF89a') throw malformed(input, 'no GIF87a/GIF89a header');
  const screen = admitPixels(input, await c.u16le(), await c.u16le());
  const packed = await c.u8();
  c.skip(2);
  skipColorTable(input, packed);
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

function skipColorTable(input: RasterInput, packed: number): void {
  if (packed & 0x80) input.cursor.skip(3 * (1 << ((packed & 0x07) + 1)));
}

async function skipImage(input: RasterInput): Promise<void> {
  const c = input.cursor;
  c.skip(4);
  // A frame larger than the screen is decoded at its own size: it is held to the same cap.
  admitPixels(input, await c.u16le(), await c.u16le());
  skipColorTable(input, await c.u8());
  c.skip(1);
  await subBlocks(input);
}

async function readExtension(input: RasterInput): Promise<void> {
  const label = await input.cursor.u8();
  if (label === COMMENT) {
    await subBlocks(input, new PayloadScanner(input.mimeType, 'comment extension', true));
  } else if (label === APPLICATION) {
    const id = (await input.cursor.peek(Math.min(12, input.cursor.remaining)))
      .toString('latin1', 1)
      .replace(/[^\x20-\x7e]/g, '?');
    const xmp = id === 'XMP DataXMP';
    await subBlocks(input, new PayloadScanner(input.mimeType, `application extension (${id})`, xmp, [0, 11]));
  } else {
    await subBlocks(input);
  }
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
