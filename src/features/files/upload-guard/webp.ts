import { UploadTrailingData } from '../upload.errors.ts';
import { admitPixels, malformed, type Dimensions, type RasterInput } from './raster.ts';

/**
 * Checks a WebP's RIFF header and reads its dimensions from the first chunk (VP8, VP8L or VP8X). Bytes after the
 * RIFF chunk are refused; the chunks inside are not scanned.
 */
export async function walkWebp(input: RasterInput): Promise<Dimensions> {
  const c = input.cursor;
  const riff = await c.take(12);
  if (riff.toString('latin1', 0, 4) !== 'RIFF' || riff.toString('latin1', 8, 12) !== 'WEBP') {
    throw malformed(input, 'no RIFF/WEBP header');
  }
  const end = 8 + riff.readUInt32LE(4);
  if (end > c.size) throw malformed(input, `the RIFF header declares ${end} bytes, the file has ${c.size}`);
  const chunk = await c.take(8);
  const dimensions = readFrame(input, chunk.toString('latin1', 0, 4), await c.take(Math.min(10, c.remaining)));
  if (c.size > end + (end % 2)) {
    throw new UploadTrailingData({ mimeType: input.mimeType, endMarker: 'RIFF chunk', bytes: c.size - end });
  }
  return dimensions;
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
