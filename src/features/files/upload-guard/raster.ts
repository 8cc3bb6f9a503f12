import { createInflate } from 'node:zlib';
import { Readable } from 'node:stream';
import { DomainError } from '../../../kernel/http/errors.ts';
import { UploadDimensionsExceeded, UploadMalformed } from '../upload.errors.ts';
import type { Cursor } from './cursor.ts';
import type { PayloadScanner } from './payload-scanner.ts';

/** What a raster walker works on: the file, its declared type and the policy's pixel cap. */
export interface RasterInput {
  readonly cursor: Cursor;
  readonly mimeType: string;
  readonly maxPixels: number;
}

export interface Dimensions {
  width: number;
  height: number;
}

/** Walks a raster image's structure, scanning its metadata; returns the dimensions its header declares. */
export type RasterWalker = (input: RasterInput) => Promise<Dimensions>;

/**
 * Compressed metadata is inflated and scanned up to this many bytes: enough for any real text, no zip bomb. Text
 * that inflates to more is refused, never accepted unread.
 */
export const INFLATE_LIMIT = 1024 * 1024;

/** The walkers' UPLOAD_MALFORMED, in the words of the declared type. */
export function malformed(input: RasterInput, problem: string): InstanceType<typeof UploadMalformed> {
  return new UploadMalformed({ mimeType: input.mimeType, problem });
}

/** The declared dimensions, refused when empty or above the pixel cap (before anything decodes a pixel). */
export function admitPixels(input: RasterInput, width: number, height: number): Dimensions {
  if (width === 0 || height === 0) throw malformed(input, `the header declares ${width} × ${height} pixels`);
  if (width * height > input.maxPixels) {
    throw new UploadDimensionsExceeded({ width, height, maxPixels: input.maxPixels });
  }
  return { width, height };
}

/**
 * Inflates the next `n` bytes (a zlib stream) into `scanner`; the cursor moves past them. Data that does not
 * inflate is malformed, and so is data that inflates to more than INFLATE_LIMIT bytes: inflation stops there.
 */
export async function scanInflated(input: RasterInput, n: number, scanner: PayloadScanner, what: string) {
  const c = input.cursor;
  const from = c.pos;
  c.skip(n);
  const source = Readable.from(c.range(from, n));
  const inflater = createInflate();
  source.pipe(inflater);
  let produced = 0;
  try {
    for await (const out of inflater as AsyncIterable<Buffer>) {
      produced += out.length;
      if (produced > INFLATE_LIMIT) {
        throw malformed(input, `the ${what} inflates to more than ${INFLATE_LIMIT} bytes, more than the guard reads`);
      }
      scanner.feed(out);
    }
    scanner.end();
  } catch (err) {
    if (err instanceof DomainError) throw err;
    throw malformed(input, `the ${what} does not inflate`);
  } finally {
    source.destroy();
    inflater.destroy();
  }
}

/** Streams the next `n` bytes into `scanner` and ends it. */
export async function scanRaw(input: RasterInput, n: number, scanner: PayloadScanner): Promise<void> {
  await input.cursor.stream(n, (chunk) => scanner.feed(chunk));
  scanner.end();
}

/** Scans a payload already in memory (at most a window) and ends the scanner. */
export function scanBuffer(bytes: Buffer, scanner: PayloadScanner): void {
  scanner.feed(bytes);
  scanner.end();
}

/** A chunk or box type as it can be shown in a message: bytes outside printable ASCII become `?`. */
export const printable = (type: string) => type.replace(/[^\x20-\x7e]/g, '?');

/** A marker or block byte as the format's documents write it (`FFD9`, `0x3B`). */
export const hex = (n: number, width = 2) => n.toString(16).toUpperCase().padStart(width, '0');
