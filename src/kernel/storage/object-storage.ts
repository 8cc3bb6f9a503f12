import { Transform, type Readable } from 'node:stream';

/**
 * The file storage port (DESIGN §2, files row): local disk under `SVC_DATA_DIR/files` by default, S3-compatible
 * object storage when `S3_*` is configured. Every adapter passes `test/contracts/object-storage.contract.ts`.
 *
 * Bodies stream in and out: no adapter holds a whole object in memory. Keys are relative, `/`-separated paths
 * checked by `assertObjectKey`; callers confine each site to its own prefix with `siteObjects`.
 */
export interface ObjectStorage {
  readonly kind: 'disk' | 's3';
  /**
   * Stores `body` under `key`, replacing any object there. When the body passes `maxBytes` the write is aborted,
   * nothing is left under `key`, and `ObjectTooLarge` is thrown (the bytes are counted as they arrive).
   */
  put(key: string, body: Readable, options?: PutOptions): Promise<StoredObject>;
  /** The object's bytes (optionally a byte range, inclusive ends), or null when there is none. */
  get(key: string, range?: ByteRange): Promise<ObjectBody | null>;
  head(key: string): Promise<StoredObject | null>;
  /** Removes the object; absent is not an error. */
  delete(key: string): Promise<void>;
  /** Copies an object within the storage (server-side where the backend can). */
  copy(from: string, to: string): Promise<void>;
  /** Keys under a prefix, in lexical order, at most `limit` (default 1000) after `after`. */
  list(prefix: string, options?: { after?: string; limit?: number }): Promise<string[]>;
  /**
   * A presigned PUT address that signs the length and content type (S3 only; null on disk, where the service
   * offers its own signed upload address).
   */
  presignPut(key: string, options: PresignOptions): Promise<PresignedPut | null>;
  close(): Promise<void>;
}

export interface PutOptions {
  contentType?: string;
  maxBytes?: number;
}

export interface StoredObject {
  key: string;
  size: number;
  contentType?: string;
}

export interface ObjectBody extends StoredObject {
  body: Readable;
  /** The range served, when one was asked for. */
  range?: { start: number; end: number };
}

export interface ByteRange {
  start: number;
  /** Inclusive; past the end means to the end. */
  end: number;
}

export interface PresignOptions {
  contentType: string;
  contentLength: number;
  expiresInSeconds: number;
}

export interface PresignedPut {
  url: string;
  method: 'PUT';
  /** Headers the client must send exactly as given (they are signed). */
  headers: Record<string, string>;
  expiresAt: string;
}

/** The body passed the size cap; nothing was stored. */
export class ObjectTooLarge extends Error {
  constructor(readonly maxBytes: number) {
    super(`the body is larger than ${maxBytes} bytes`);
    this.name = 'ObjectTooLarge';
  }
}

const KEY = /^[A-Za-z0-9_-][A-Za-z0-9._-]*(\/[A-Za-z0-9_-][A-Za-z0-9._-]*)*$/;

/** A key is relative `/`-separated segments of `[A-Za-z0-9._-]`, no segment starts with `.`, at most 512 chars. */
export function isObjectKey(key: string): boolean {
  return key.length > 0 && key.length <= 512 && KEY.test(key);
}

export function assertObjectKey(key: string): void {
  if (!isObjectKey(key)) throw new TypeError(`not an object key: ${JSON.stringify(key.slice(0, 80))}`);
}

/** A pass-through that counts bytes and fails with ObjectTooLarge past the cap (a lying Content-Length changes nothing). */
export function byteCounter(maxBytes?: number): Transform & { bytes: number } {
  const counter = new Transform({
    transform(chunk: Buffer, _enc, done) {
      counter.bytes += chunk.length;
      if (maxBytes !== undefined && counter.bytes > maxBytes) return done(new ObjectTooLarge(maxBytes));
      done(null, chunk);
    },
  }) as Transform & { bytes: number };
  counter.bytes = 0;
  return counter;
}
