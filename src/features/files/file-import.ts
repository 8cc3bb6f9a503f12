import type { Readable } from 'node:stream';
import type { AppDeps } from '../../deps.ts';
import { DomainError } from '../../kernel/http/errors.ts';
import { OutboundError, outboundStream } from '../../platform/net/outbound-http.ts';
import { admitDeclared } from './upload-guard/inspect.ts';
import { FormRefused, type FormFile } from './upload-form.ts';
import { ImportRefused } from './upload-form.errors.ts';
import type { UploadPolicy } from './upload-policy.ts';
import { receiveUpload, UploadRefused } from './upload-receive.ts';
import { UploadTooLarge } from './upload.errors.ts';

/** The name a fetched file is stored under: the one given, else the URL's last path segment. */
function importName(url: string, given: string | undefined): string {
  if (given !== undefined) return given;
  let segment = '';
  try {
    segment = new URL(url).pathname.split('/').pop() ?? '';
    segment = decodeURIComponent(segment);
  } catch {
    // A segment that does not decode is kept as it was sent; the guard judges it.
  }
  return segment || 'download';
}

const declaredType = (contentType: string | undefined) =>
  (contentType ?? 'application/octet-stream').split(';')[0]!.trim().toLowerCase() || 'application/octet-stream';

/**
 * Fetches a file for POST /api/v1/files/import through the outbound helper (private addresses refused after DNS
 * resolution unless SVC_FILE_IMPORT_ALLOW_PRIVATE, no redirects, SVC_FILE_IMPORT_TIMEOUT_MS for the whole exchange)
 * and runs the upload guard on its bytes as they arrive, the cap counted on them. The declared type is the
 * answer's `Content-Type`. Any refusal is a FormRefused, for the caller to record.
 */
export async function fetchImport(
  deps: Pick<AppDeps, 'config'>,
  input: { url: string; filename?: string | undefined },
  policy: UploadPolicy,
): Promise<FormFile> {
  let part = { filename: importName(input.url, input.filename), declaredMimeType: '' };
  const refuse = (err: DomainError, bytesRead = 0) => new FormRefused(new UploadRefused(err, bytesRead), part);
  let body: Readable | undefined;
  try {
    const res = await outboundStream(input.url, {
      allowPrivate: deps.config.SVC_FILE_IMPORT_ALLOW_PRIVATE,
      timeoutMs: deps.config.SVC_FILE_IMPORT_TIMEOUT_MS,
      // The guard counts the cap on the bytes and refuses first; the helper's own cap (a chunk later) is a backstop.
      maxBytes: policy.maxBytes + 1_048_576,
    });
    body = res.body;
    if (res.status !== 200) throw new ImportRefused({ reason: 'status', message: `the server answered ${res.status}` });
    part = { ...part, declaredMimeType: declaredType(res.headers['content-type']) };
    admitDeclared({ filename: part.filename, mimeType: part.declaredMimeType }, policy);
    const length = Number(res.headers['content-length']);
    const declared = {
      filename: part.filename,
      mimeType: part.declaredMimeType,
      ...(Number.isSafeInteger(length) && length >= 0 ? { contentLength: length } : {}),
    };
    const received = await receiveUpload(res.body, declared, policy, deps.config.SVC_UPLOAD_TMP_DIR);
    return { ...part, received };
  } catch (err) {
    body?.destroy();
    if (err instanceof UploadRefused) throw new FormRefused(err, part);
    if (err instanceof DomainError) throw refuse(err);
    // The body fails only with the helper's reasons; anything else is this machine's (the temp folder's disk).
    if (!(err instanceof OutboundError)) throw err;
    if (err.reason === 'too_large') throw refuse(new UploadTooLarge({ maxBytes: policy.maxBytes }));
    throw refuse(new ImportRefused({ reason: err.reason, message: err.message }));
  }
}
