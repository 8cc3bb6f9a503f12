import { defineError } from '../../kernel/http/errors.ts';

const body = ['body'];
const quote = (s: string) => JSON.stringify(s);

/** The body passes the policy's byte cap (counted as the bytes arrive). */
export const UploadTooLarge = defineError<{ maxBytes: number }>(
  'UPLOAD_TOO_LARGE',
  'too_large',
  (d) => `the upload exceeds the limit of ${d.maxBytes} bytes`,
  (d) => ({ path: body, extensions: { maxBytes: d.maxBytes } }),
);

/** A filename that cannot name a stored file: empty, only dots, a path, a NUL or another control character. */
export const InvalidUploadFilename = defineError<{ filename: string; problem: string }>(
  'VALIDATION_FAILED',
  'invalid',
  (d) => `the filename ${quote(d.filename)} ${d.problem}`,
  (d) => ({ path: ['filename'], extensions: { problem: d.problem } }),
);

/** Without an extension the filename cannot be checked against the declared type. */
export const UploadExtensionMissing = defineError<{ filename: string }>(
  'UPLOAD_TYPE_NOT_ALLOWED',
  'unsupported_media',
  (d) => `the filename ${quote(d.filename)} has no extension`,
  () => ({ path: ['filename'] }),
);

/** The declared MIME type is not in the site's allowlist. */
export const UploadMimeTypeNotAllowed = defineError<{ mimeType: string }>(
  'UPLOAD_TYPE_NOT_ALLOWED',
  'unsupported_media',
  (d) => `the type ${quote(d.mimeType)} is not allowed for uploads`,
  (d) => ({ path: ['mimeType'], extensions: { mimeType: d.mimeType } }),
);

/** The filename's extension is not in the site's allowlist. */
export const UploadExtensionNotAllowed = defineError<{ extension: string }>(
  'UPLOAD_TYPE_NOT_ALLOWED',
  'unsupported_media',
  (d) => `the extension .${d.extension} is not allowed for uploads`,
  (d) => ({ path: ['filename'], extensions: { extension: d.extension } }),
);

/** The allowlist names a type the guard has no catalogue entry for, so its content cannot be checked. */
export const UploadTypeUnknown = defineError<{ mimeType: string }>(
  'UPLOAD_TYPE_NOT_ALLOWED',
  'unsupported_media',
  (d) => `the type ${quote(d.mimeType)} is allowed but unknown to the upload guard`,
  (d) => ({ path: ['mimeType'], extensions: { mimeType: d.mimeType } }),
);

/** The filename's extension is not one of the declared type's. */
export const UploadExtensionMismatch = defineError<{
  mimeType: string;
  extension: string;
  expected: readonly string[];
}>(
  'UPLOAD_TYPE_MISMATCH',
  'unsupported_media',
  (d) =>
    `the extension .${d.extension} does not match the declared type ${d.mimeType} (expected ${d.expected.map((e) => `.${e}`).join(', ')})`,
  (d) => ({ path: ['filename'], extensions: { declared: d.mimeType, extension: d.extension, expected: d.expected } }),
);

/** The bytes are another type than the declared one (or carry no signature of it). */
export const UploadContentMismatch = defineError<{ declared: string; detected: string | undefined }>(
  'UPLOAD_TYPE_MISMATCH',
  'unsupported_media',
  (d) =>
    d.detected === undefined
      ? `the content is not ${d.declared}: no ${d.declared} signature found`
      : `the content is ${d.detected}, not the declared ${d.declared}`,
  (d) => ({ path: body, extensions: { declared: d.declared, detected: d.detected ?? null } }),
);

/** A text type whose bytes are not UTF-8 text. */
export const UploadNotText = defineError<{ declared: string; offset: number; problem: 'a NUL byte' | 'invalid UTF-8' }>(
  'UPLOAD_TYPE_MISMATCH',
  'unsupported_media',
  (d) => `the content is not ${d.declared} text: ${d.problem} at byte ${d.offset}`,
  (d) => ({ path: body, extensions: { declared: d.declared, offset: d.offset, problem: d.problem } }),
);

/** An XML document declared as SVG whose root element is something else. */
export const UploadRootNotSvg = defineError<{ root: string }>(
  'UPLOAD_TYPE_MISMATCH',
  'unsupported_media',
  (d) => `the root element is <${d.root}>, not <svg>`,
  (d) => ({ path: body, extensions: { declared: 'image/svg+xml', root: d.root } }),
);

/** A program, whatever its name and declared type. */
export const UploadExecutable = defineError<{ format: string; detected: string }>(
  'UPLOAD_EXECUTABLE',
  'unprocessable',
  (d) => `the content is an executable (${d.format})`,
  (d) => ({ path: body, extensions: { format: d.format, detected: d.detected } }),
);

/** An SVG that can run script, load a document or reach outside itself. */
export const UploadActiveContent = defineError<{ found: string }>(
  'UPLOAD_ACTIVE_CONTENT',
  'unprocessable',
  (d) => `the SVG has active content: ${d.found}`,
  (d) => ({ path: body, extensions: { found: d.found } }),
);

/** Script or an executable hidden in an image's metadata. */
export const UploadEmbeddedPayload = defineError<{ mimeType: string; marker: string; location: string }>(
  'UPLOAD_EMBEDDED_PAYLOAD',
  'unprocessable',
  (d) => `the ${d.mimeType} image carries ${quote(d.marker)} in its ${d.location}`,
  (d) => ({ path: body, extensions: { detected: d.marker, location: d.location } }),
);

/** Bytes after an image's end marker: the classic way to append a script or an archive (a polyglot). */
export const UploadTrailingData = defineError<{ mimeType: string; endMarker: string; bytes: number }>(
  'UPLOAD_EMBEDDED_PAYLOAD',
  'unprocessable',
  (d) => `the ${d.mimeType} image has ${d.bytes} bytes after its ${d.endMarker}`,
  (d) => ({ path: body, extensions: { endMarker: d.endMarker, trailingBytes: d.bytes } }),
);

/** An image, SVG or JSON document whose structure does not parse. */
export const UploadMalformed = defineError<{ mimeType: string; problem: string }>(
  'UPLOAD_MALFORMED',
  'unprocessable',
  (d) => `the ${d.mimeType} content is malformed: ${d.problem}`,
  (d) => ({ path: body, extensions: { declared: d.mimeType, problem: d.problem } }),
);

/** The header declares more pixels than the policy allows: a decompression bomb is refused before decoding. */
export const UploadDimensionsExceeded = defineError<{ width: number; height: number; maxPixels: number }>(
  'UPLOAD_DIMENSIONS_EXCEEDED',
  'unprocessable',
  (d) => `the image declares ${d.width} × ${d.height} = ${d.width * d.height} pixels, over the limit of ${d.maxPixels}`,
  (d) => ({ path: body, extensions: { width: d.width, height: d.height, maxPixels: d.maxPixels } }),
);

/** No upload with this id was handed out to the caller (or on this site). */
export const UploadNotFound = defineError<{ uploadId: string }>(
  'NOT_FOUND',
  'not_found',
  (d) => `no upload ${d.uploadId}`,
  () => ({ path: ['uploadId'] }),
);

/** An upload address is single use: its bytes arrived already, or it became a file, or it was refused. */
export const UploadAlreadyUsed = defineError<{ uploadId: string }>(
  'CONFLICT',
  'conflict',
  (d) => `upload ${d.uploadId} was used already`,
  () => ({ path: ['uploadId'] }),
);

/** The upload address is not one the service signed, or its time is up. */
export const UploadAddressInvalid = defineError<{ problem: 'signature' | 'expired' }>(
  'UNAUTHENTICATED',
  'unauthenticated',
  (d) => (d.problem === 'expired' ? 'the upload address has expired' : 'the upload address is not valid'),
  () => ({ path: ['query', 'signature'] }),
);

/** The bytes that arrived are fewer than the upload was signed for. */
export const UploadSizeMismatch = defineError<{ expected: number; received: number }>(
  'VALIDATION_FAILED',
  'invalid',
  (d) => `the upload was signed for ${d.expected} bytes and ${d.received} arrived`,
  (d) => ({ path: ['body'], extensions: { expected: d.expected, received: d.received } }),
);

/** Nothing was uploaded to the address yet (S3: no object; disk: no PUT). */
export const UploadNotReceived = defineError<{ uploadId: string }>(
  'CONFLICT',
  'conflict',
  (d) => `nothing was uploaded for ${d.uploadId} yet`,
  () => ({ path: ['uploadId'] }),
);
