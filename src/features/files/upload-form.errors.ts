import { defineError } from '../../kernel/http/errors.ts';

/** A multipart body that does not parse: it ends inside a part, its boundary is wrong, a part header is broken. */
export const MultipartMalformed = defineError<{ problem: string }>(
  'VALIDATION_FAILED',
  'invalid',
  (d) => `the multipart body is malformed: ${d.problem}`,
  () => ({ path: ['body'], extensions: { reason: 'malformed_multipart' } }),
);

/** A multipart body with more files, fields or parts than one request may carry. */
export const MultipartTooManyParts = defineError<{ limit: 'files' | 'fields' | 'parts'; max: number }>(
  'UPLOAD_TOO_LARGE',
  'too_large',
  (d) => `the request carries more ${d.limit} than ${d.max}`,
  (d) => ({ path: ['body'], extensions: { limit: d.limit, max: d.max } }),
);

/** A field of a multipart body the file record does not have, or a value that is too long or not what it should be. */
export const MultipartFieldInvalid = defineError<{ field: string; problem: string }>(
  'VALIDATION_FAILED',
  'invalid',
  (d) => `the field ${JSON.stringify(d.field)} ${d.problem}`,
  (d) => ({ path: ['body', d.field], extensions: { reason: 'invalid_field' } }),
);

/** A multipart body without any file part. */
export const MultipartNoFile = defineError(
  'VALIDATION_FAILED',
  'invalid',
  () => 'the multipart body carries no file part (name it "file")',
  () => ({ path: ['body', 'file'], extensions: { reason: 'missing_file' } }),
);

/**
 * The import did not get the file: the URL is one the service will not fetch (not http(s), credentials, a private
 * address, a redirect), or the remote server did not hand it over (no answer in time, a network failure, a status
 * other than 200). `reason` names which (the outbound helper's reasons, and `status`).
 */
export const ImportRefused = defineError<{ reason: string; message: string }>(
  'VALIDATION_FAILED',
  'invalid',
  (d) => `the url cannot be imported: ${d.message}`,
  (d) => ({ path: ['body', 'url'], extensions: { reason: d.reason } }),
);
