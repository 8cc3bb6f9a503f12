import { Readable, pipeline } from 'node:stream';
import {
  CopyObjectCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
  S3ServiceException,
  type S3ClientConfig,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import {
  assertObjectKey,
  byteCounter,
  type ByteRange,
  type ObjectBody,
  type ObjectStorage,
  type PresignedPut,
  type PresignOptions,
  type PutOptions,
  type StoredObject,
} from '../../kernel/storage/object-storage.ts';

export interface S3StorageOptions {
  /** A non-AWS server (MinIO, Ceph, Swift's s3api…); unset means AWS itself. */
  endpoint?: string;
  bucket: string;
  region: string;
  /** Both or neither; neither means the SDK's default credential chain. */
  accessKeyId?: string;
  secretAccessKey?: string;
  /** Bucket in the path rather than the host name; defaults to true when `endpoint` is set. */
  forcePathStyle?: boolean;
  /** Prepended to every key (a store shared by several services or test files); '' by default. */
  prefix?: string;
}

/** The smallest part S3 accepts but the last: the most an upload holds in memory is this times QUEUE_SIZE. */
const PART_SIZE = 5 * 1024 * 1024;
const QUEUE_SIZE = 2;
/** ListObjectsV2 gives at most this many keys a page. */
const PAGE = 1000;
const SIGNED_HEADERS = new Set(['content-type', 'content-length']);
/** SigV4 presigned addresses live at most a week. */
const MAX_EXPIRY = 7 * 24 * 3600;

/** Objects in an S3 bucket (AWS or a compatible server), optionally under a key prefix. */
export class S3ObjectStorage implements ObjectStorage {
  readonly kind = 's3' as const;
  private readonly client: S3Client;
  /**
   * Signs upload addresses. Its checksum mode is always WHEN_REQUIRED: the default (WHEN_SUPPORTED) puts the CRC32
   * of the empty body in the address's query, which the real upload then fails.
   */
  private readonly presigner: S3Client;
  private readonly bucket: string;
  private readonly prefix: string;

  constructor(options: S3StorageOptions) {
    const { endpoint, region, accessKeyId, secretAccessKey } = options;
    const config: S3ClientConfig = {
      region,
      endpoint,
      forcePathStyle: options.forcePathStyle ?? endpoint !== undefined,
      ...(accessKeyId && secretAccessKey ? { credentials: { accessKeyId, secretAccessKey } } : {}),
      // Servers other than AWS seldom know the flexible checksums (aws-chunked bodies with trailers, CRC headers).
      ...(endpoint ? { requestChecksumCalculation: 'WHEN_REQUIRED', responseChecksumValidation: 'WHEN_REQUIRED' } : {}),
    };
    this.client = new S3Client(config);
    this.presigner = new S3Client({ ...config, requestChecksumCalculation: 'WHEN_REQUIRED' });
    this.bucket = options.bucket;
    this.prefix = options.prefix ?? '';
  }

  private key(key: string): string {
    assertObjectKey(key);
    return this.prefix + key;
  }

  /**
   * Streams the body in parts of PART_SIZE (one PutObject when it fits in one). Past `maxBytes` the counter fails
   * the stream rather than `upload.abort()` being called: `done()` then settles only once lib-storage has sent
   * AbortMultipartUpload for the parts already stored, whereas after `abort()` it rejects at once while the parts
   * in flight and the clean-up still run unobserved. A body that never passes the first part sends no request.
   */
  async put(key: string, body: Readable, options: PutOptions = {}): Promise<StoredObject> {
    const Key = this.key(key);
    const counter = byteCounter(options.maxBytes);
    pipeline(body, counter, () => {}); // an error in either reaches the upload through `counter`
    try {
      const params = { Bucket: this.bucket, Key, Body: counter, ContentType: options.contentType };
      await new Upload({ client: this.client, queueSize: QUEUE_SIZE, partSize: PART_SIZE, params }).done();
    } catch (err) {
      counter.destroy(); // a failed request leaves the body half read: let it go
      throw err;
    }
    return { key, size: counter.bytes, contentType: options.contentType };
  }

  async get(key: string, range?: ByteRange): Promise<ObjectBody | null> {
    const res = await this.client
      .send(
        new GetObjectCommand({
          Bucket: this.bucket,
          Key: this.key(key),
          Range: range ? `bytes=${range.start}-${range.end}` : undefined,
        }),
      )
      .catch((err: unknown) => {
        if (range && err instanceof S3ServiceException && err.name === 'InvalidRange')
          throw new RangeError(`bytes ${range.start}-${range.end} of ${key} are not satisfiable`, { cause: err });
        return nullIfMissing(err);
      });
    if (!res) return null;
    const body = (res.Body as Readable | undefined) ?? Readable.from([]);
    const type = res.ContentType ? { contentType: res.ContentType } : {};
    const served = parseContentRange(res.ContentRange);
    if (served) return { key, size: served.size, ...type, body, range: { start: served.start, end: served.end } };
    const size = res.ContentLength ?? 0;
    // A server may ignore a range it cannot parse (end before start) and send the whole object.
    return { key, size, ...type, body, ...(range ? { range: { start: 0, end: size - 1 } } : {}) };
  }

  async head(key: string): Promise<StoredObject | null> {
    const res = await this.client
      .send(new HeadObjectCommand({ Bucket: this.bucket, Key: this.key(key) }))
      .catch(nullIfMissing);
    if (!res) return null;
    return { key, size: res.ContentLength ?? 0, ...(res.ContentType ? { contentType: res.ContentType } : {}) };
  }

  async delete(key: string): Promise<void> {
    await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: this.key(key) })).catch(nullIfMissing);
  }

  /** Server-side (CopyObject, so up to 5 GB); the content type goes with the object. */
  async copy(from: string, to: string): Promise<void> {
    const source = `${this.bucket}/${this.key(from)}`.split('/').map(encodeURIComponent).join('/');
    await this.client.send(new CopyObjectCommand({ Bucket: this.bucket, Key: this.key(to), CopySource: source }));
  }

  async list(prefix: string, options: { after?: string; limit?: number } = {}): Promise<string[]> {
    // As on disk: the folders the prefix names must be a key's; its last segment is free text.
    const slash = prefix.lastIndexOf('/');
    if (slash >= 0) assertObjectKey(prefix.slice(0, slash));
    const limit = options.limit ?? PAGE;
    const keys: string[] = [];
    let token: string | undefined;
    while (keys.length < limit) {
      const page = await this.client.send(
        new ListObjectsV2Command({
          Bucket: this.bucket,
          Prefix: this.prefix + prefix,
          StartAfter: options.after === undefined ? undefined : this.prefix + options.after,
          MaxKeys: Math.min(PAGE, limit - keys.length),
          ContinuationToken: token,
        }),
      );
      for (const { Key } of page.Contents ?? []) if (Key !== undefined) keys.push(Key.slice(this.prefix.length));
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
      if (!token) break;
    }
    return keys.slice(0, limit);
  }

  /**
   * Content-Type and Content-Length are signed headers (never moved into the query), so the server refuses a body
   * of another length or type: the size and type checked when the address was issued are the ones stored.
   */
  async presignPut(key: string, options: PresignOptions): Promise<PresignedPut> {
    const { contentType, contentLength, expiresInSeconds } = options;
    if (!Number.isSafeInteger(contentLength) || contentLength < 0)
      throw new RangeError('contentLength: bytes, 0 or more');
    if (!Number.isInteger(expiresInSeconds) || expiresInSeconds < 1 || expiresInSeconds > MAX_EXPIRY)
      throw new RangeError(`expiresInSeconds: 1 to ${MAX_EXPIRY}`);
    const command = new PutObjectCommand({
      Bucket: this.bucket,
      Key: this.key(key),
      ContentType: contentType,
      ContentLength: contentLength,
    });
    // Signatures count in whole seconds: the address expires `expiresInSeconds` after the second it was signed in.
    const signingDate = new Date(Math.floor(Date.now() / 1000) * 1000);
    const url = await getSignedUrl(this.presigner, command, {
      expiresIn: expiresInSeconds,
      signingDate,
      signableHeaders: SIGNED_HEADERS,
    });
    return {
      url,
      method: 'PUT',
      headers: { 'content-type': contentType, 'content-length': String(contentLength) },
      expiresAt: new Date(signingDate.getTime() + expiresInSeconds * 1000).toISOString(),
    };
  }

  async close(): Promise<void> {
    this.client.destroy();
    this.presigner.destroy();
  }
}

/** NoSuchKey (GET) or a bare 404 (HEAD has no body to name the error); a missing bucket stays an error on GET. */
function nullIfMissing(err: unknown): null {
  if (err instanceof S3ServiceException && (err.name === 'NoSuchKey' || err.name === 'NotFound')) return null;
  throw err;
}

/** `bytes 7-9/10` → the served range and the object's size. */
function parseContentRange(header: string | undefined): { start: number; end: number; size: number } | null {
  const match = header ? /^bytes (\d+)-(\d+)\/(\d+)$/.exec(header) : null;
  if (!match) return null;
  return { start: Number(match[1]), end: Number(match[2]), size: Number(match[3]) };
}
