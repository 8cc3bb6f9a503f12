import { createHash, randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { DomainError } from '../../kernel/http/errors.ts';
import { byteCounter, ObjectTooLarge } from '../../kernel/storage/object-storage.ts';
import { inspectUpload, type Inspection } from './upload-guard/inspect.ts';
import { UploadSizeMismatch, UploadTooLarge } from './upload.errors.ts';
import type { UploadPolicy } from './upload-policy.ts';

/** Bytes that passed the upload guard, waiting in a temp file until the caller stores them. */
export interface ReceivedUpload {
  path: string;
  size: number;
  sha256: string;
  inspection: Inspection;
  /** Removes the temp file (always call it, stored or not). */
  discard(): Promise<void>;
}

/** A refusal of the guard with how many bytes had arrived (for the audit event). */
export class UploadRefused extends Error {
  constructor(
    readonly refusal: DomainError,
    readonly bytesRead: number,
  ) {
    super(refusal.message);
    this.name = 'UploadRefused';
  }
}

/**
 * Rules 2–5 of the upload guard on a body as it arrives: the cap is counted on the bytes (a `Content-Length` over
 * the cap is refused before reading, one under it changes nothing), the bytes land in a temp file and are hashed on
 * the way, then their content is inspected (type, executables, active SVG, raster payloads). Nothing of a refused
 * upload stays behind. Rule 1 (the public role) is the caller's, before it reads the body.
 */
export async function receiveUpload(
  body: Readable,
  declared: { filename: string; mimeType: string; contentLength?: number; exactSize?: number },
  policy: UploadPolicy,
  tmpDir: string = join(tmpdir(), 'svc-uploads'),
): Promise<ReceivedUpload> {
  if (declared.contentLength !== undefined && declared.contentLength > policy.maxBytes) {
    body.resume();
    throw new UploadRefused(new UploadTooLarge({ maxBytes: policy.maxBytes }), 0);
  }
  await mkdir(tmpDir, { recursive: true });
  const path = join(tmpDir, randomBytes(16).toString('hex'));
  const discard = () => rm(path, { force: true });
  const counter = byteCounter(policy.maxBytes);
  const hash = createHash('sha256');
  const hasher = new Transform({
    transform(chunk: Buffer, _enc, done) {
      hash.update(chunk);
      done(null, chunk);
    },
  });
  const out = createWriteStream(path, { flags: 'wx' });
  try {
    await pipeline(body, counter, hasher, out);
  } catch (err) {
    // A body that fails at once (it ends inside a part) can fail before the file is even open: the stream opens it
    // and closes it after that, so it is removed only once closed, or it would be left behind.
    if (!out.closed) await new Promise<void>((resolve) => out.once('close', () => resolve()));
    await discard();
    if (err instanceof ObjectTooLarge) {
      // The client may still be sending; what it sends next is read and dropped, not stored.
      body.resume();
      throw new UploadRefused(new UploadTooLarge({ maxBytes: policy.maxBytes }), counter.bytes);
    }
    throw err;
  }
  if (declared.exactSize !== undefined && counter.bytes !== declared.exactSize) {
    await discard();
    throw new UploadRefused(
      new UploadSizeMismatch({ expected: declared.exactSize, received: counter.bytes }),
      counter.bytes,
    );
  }
  try {
    const inspection = await inspectUpload({ path, size: counter.bytes }, declared, policy);
    return { path, size: counter.bytes, sha256: hash.digest('hex'), inspection, discard };
  } catch (err) {
    await discard();
    throw err instanceof DomainError ? new UploadRefused(err, counter.bytes) : err;
  }
}
