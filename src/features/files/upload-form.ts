import type { Multipart } from '@fastify/multipart';
import { DomainError } from '../../kernel/http/errors.ts';
import { admitDeclared } from './upload-guard/inspect.ts';
import type { UploadPolicy } from './upload-policy.ts';
import { receiveUpload, UploadRefused, type ReceivedUpload } from './upload-receive.ts';
import { UploadTooLarge } from './upload.errors.ts';
import { MultipartFieldInvalid, MultipartMalformed, MultipartTooManyParts } from './upload-form.errors.ts';

/**
 * What one multipart request may carry (`POST /api/v1/files`): a budget the parser enforces as the body arrives.
 * A file part is also cut off one byte past the site's cap (`partLimits`), where the upload guard refuses it.
 */
export const FORM_LIMITS = {
  files: 10,
  fields: 20,
  /** Bytes of one field's value (a description may be 10 000 characters of up to 4 bytes each). */
  fieldSize: 48 * 1024,
  fieldNameSize: 100,
  parts: 30,
  headerPairs: 20,
  /** Bytes of one part's header block (a filename is at most 255 bytes; a longer one is refused by the guard). */
  headerSize: 16 * 1024,
} as const;

/** The parser's limits for a site whose cap is `maxBytes`; paths in filenames are kept for the guard to refuse. */
export const partLimits = (maxBytes: number) => ({
  preservePath: true,
  limits: { ...FORM_LIMITS, fileSize: maxBytes + 1 },
});

/** A file part that passed the upload guard, in a temp file until it is stored. */
export interface FormFile {
  filename: string;
  declaredMimeType: string;
  received: ReceivedUpload;
}

/** A multipart body as received: its guarded files and its fields (names as sent, values as text, in order). */
export interface ReceivedForm {
  files: FormFile[];
  fields: Map<string, string[]>;
}

/** A refusal while reading a multipart body, with the part it concerns (for the refusal event). */
export class FormRefused extends Error {
  constructor(
    readonly refused: UploadRefused,
    readonly part: { filename: string; declaredMimeType: string },
  ) {
    super(refused.message);
    this.name = 'FormRefused';
  }
}

/**
 * Reads a multipart body part by part: each file part (named `file`) streams through the upload guard into a temp
 * file, fields are collected. Nothing is stored here; the first refusal discards every file received so far, so
 * several files are all accepted or none is.
 */
export async function receiveForm(
  parts: AsyncIterable<Multipart>,
  policy: UploadPolicy,
  tmpDir: string | undefined,
): Promise<ReceivedForm> {
  const files: FormFile[] = [];
  const fields = new Map<string, string[]>();
  let current = { filename: '', declaredMimeType: '' };
  let bytesRead = 0;
  try {
    for await (const part of parts) {
      if (part.type === 'field') {
        addField(fields, part);
        continue;
      }
      current = { filename: part.filename, declaredMimeType: part.mimetype };
      bytesRead = 0;
      if (part.fieldname !== 'file') {
        part.file.resume();
        throw new MultipartFieldInvalid({ field: part.fieldname, problem: 'is a file part not named "file"' });
      }
      // The name and the declared type are checked before a byte is written.
      admitDeclared({ filename: part.filename, mimeType: part.mimetype }, policy);
      const received = await receiveUpload(
        part.file,
        { filename: part.filename, mimeType: part.mimetype },
        policy,
        tmpDir,
      );
      if (part.file.truncated) {
        await received.discard();
        throw new UploadRefused(new UploadTooLarge({ maxBytes: policy.maxBytes }), received.size);
      }
      files.push({ ...current, received });
    }
  } catch (err) {
    await Promise.all(files.map((f) => f.received.discard()));
    if (err instanceof UploadRefused) bytesRead = err.bytesRead;
    throw new FormRefused(err instanceof UploadRefused ? err : new UploadRefused(formError(err), bytesRead), current);
  }
  return { files, fields };
}

function addField(fields: Map<string, string[]>, part: Extract<Multipart, { type: 'field' }>): void {
  if (part.fieldnameTruncated) throw new MultipartMalformed({ problem: 'a field name is too long' });
  if (part.valueTruncated)
    throw new MultipartFieldInvalid({
      field: part.fieldname,
      problem: `is longer than ${FORM_LIMITS.fieldSize} bytes`,
    });
  // A part sent as application/json arrives parsed: its text is what the field holds.
  const text = typeof part.value === 'string' ? part.value : JSON.stringify(part.value);
  const values = fields.get(part.fieldname);
  if (values) values.push(text);
  else fields.set(part.fieldname, [text]);
}

const LIMITS = new Map<string, () => DomainError>([
  ['FST_FILES_LIMIT', () => new MultipartTooManyParts({ limit: 'files', max: FORM_LIMITS.files })],
  ['FST_FIELDS_LIMIT', () => new MultipartTooManyParts({ limit: 'fields', max: FORM_LIMITS.fields })],
  ['FST_PARTS_LIMIT', () => new MultipartTooManyParts({ limit: 'parts', max: FORM_LIMITS.parts })],
]);

/**
 * The refusal a failure while parsing stands for: the parser's limits, a body that ends inside a part or breaks
 * the format. A failure of the machine itself (the temp folder's disk) is not the caller's and stays a failure.
 */
function formError(err: unknown): DomainError {
  if (err instanceof DomainError) return err;
  if (!(err instanceof Error) || 'syscall' in err) throw err;
  const code = (err as { code?: unknown }).code;
  const limit = typeof code === 'string' ? LIMITS.get(code) : undefined;
  if (limit) return limit();
  if (code === 'FST_PROTO_VIOLATION')
    return new MultipartMalformed({ problem: 'a part is named after a prototype member' });
  if (code === 'FST_INVALID_JSON_FIELD_ERROR')
    return new MultipartMalformed({ problem: 'a JSON field does not parse' });
  if (code === 'FST_MP_PREMATURE_CLOSE') return new MultipartMalformed({ problem: 'the request ended early' });
  return new MultipartMalformed({ problem: err.message.slice(0, 200) });
}
