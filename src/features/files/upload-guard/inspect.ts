import { open } from 'node:fs/promises';
import { fileTypeFromBuffer } from 'file-type';
import {
  UploadContentMismatch,
  UploadExtensionMismatch,
  UploadExtensionNotAllowed,
  UploadMalformed,
  UploadMimeTypeNotAllowed,
  UploadTypeUnknown,
} from '../upload.errors.ts';
import { EXTENSIONS_BY_MIME_TYPE, knownType, mimeEssence, type KnownType } from './catalogue.ts';
import { Cursor, Truncated, WINDOW } from './cursor.ts';
import { refuseExecutable } from './executable.ts';
import { extensionOf } from './filename.ts';
import { walkAvif } from './avif.ts';
import { walkGif } from './gif.ts';
import { walkJpeg } from './jpeg.ts';
import { walkPng } from './png.ts';
import type { Dimensions, RasterWalker } from './raster.ts';
import { inspectSvg } from './svg.ts';
import { checkText } from './text.ts';
import { walkWebp } from './webp.ts';

/** The parts of a site's upload policy the content checks need (the size cap is enforced as the bytes arrive). */
export interface UploadPolicyLists {
  allowedMimeTypes: readonly string[];
  allowedExtensions: readonly string[];
  maxPixels: number;
}

/** What the guard established about an accepted upload: its canonical type, extension and image dimensions. */
export interface Inspection {
  mimeType: string;
  extension: string;
  width?: number;
  height?: number;
}

const WALKERS: ReadonlyMap<string, RasterWalker> = new Map([
  ['image/jpeg', walkJpeg],
  ['image/png', walkPng],
  ['image/gif', walkGif],
  ['image/webp', walkWebp],
  ['image/avif', walkAvif],
]);

/**
 * Rules 3–5 of the upload guard on a file complete on disk, read in bounded windows (never whole):
 * the declared type must be allowed and match the filename's extension; the sniffed type must match the declared
 * one and be no program; images are walked (dimensions capped from the header, metadata scanned, nothing after
 * the end marker), SVGs parsed for active content, text checked to be UTF-8.
 */
export async function inspectUpload(
  file: { path: string; size: number },
  declared: { filename: string; mimeType: string },
  policy: UploadPolicyLists,
): Promise<Inspection> {
  const { type, extension } = admitDeclared(declared, policy);
  const fh = await open(file.path, 'r');
  try {
    const cursor = new Cursor(fh, (await fh.stat()).size);
    const head = await cursor.peek(Math.min(cursor.size, WINDOW));
    const sniffed = await sniff(head);
    const textual = type.kind === 'text' || type.kind === 'vector';
    refuseExecutable(head, sniffed, textual);
    const matches = sniffed === undefined ? textual : type.sniffed.includes(sniffed);
    if (!matches) throw new UploadContentMismatch({ declared: type.mimeType, detected: sniffed });
    const dimensions = await inspectContent(cursor, type, policy.maxPixels);
    return { mimeType: type.mimeType, extension, ...dimensions };
  } finally {
    await fh.close();
  }
}

/** Rule 3 on the declared name and type alone (also before an upload address is handed out). */
export function admitDeclared(declared: { filename: string; mimeType: string }, policy: UploadPolicyLists) {
  const extension = extensionOf(declared.filename);
  const mimeType = mimeEssence(declared.mimeType);
  if (!lowerSet(policy.allowedMimeTypes).has(mimeType)) throw new UploadMimeTypeNotAllowed({ mimeType });
  if (!lowerSet(policy.allowedExtensions).has(extension)) throw new UploadExtensionNotAllowed({ extension });
  const type = knownType(mimeType);
  if (!type) throw new UploadTypeUnknown({ mimeType });
  if (!EXTENSIONS_BY_MIME_TYPE.get(mimeType)?.has(extension)) {
    throw new UploadExtensionMismatch({ mimeType, extension, expected: type.extensions });
  }
  return { type, extension };
}

const lowerSet = (values: readonly string[]) => new Set(values.map((v) => v.trim().toLowerCase()));

/** The type `file-type` finds in the head; a sniffer that fails on hostile bytes has found nothing. */
async function sniff(head: Buffer): Promise<string | undefined> {
  try {
    return (await fileTypeFromBuffer(head))?.mime;
  } catch {
    return undefined;
  }
}

async function inspectContent(cursor: Cursor, type: KnownType, maxPixels: number): Promise<Dimensions | undefined> {
  try {
    const walk = WALKERS.get(type.mimeType);
    if (walk) return await walk({ cursor, mimeType: type.mimeType, maxPixels });
    if (type.kind === 'vector') await inspectSvg(cursor);
    else if (type.kind === 'text') await checkText(cursor, type.mimeType);
    return undefined;
  } catch (err) {
    if (!(err instanceof Truncated)) throw err;
    throw new UploadMalformed({ mimeType: type.mimeType, problem: `it ends inside a structure (${err.at} bytes)` });
  }
}
