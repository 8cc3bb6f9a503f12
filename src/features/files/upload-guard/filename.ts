import { InvalidUploadFilename, UploadExtensionMissing } from '../upload.errors.ts';

const MAX_FILENAME_BYTES = 255;

/** Why a filename cannot be stored as given, or undefined when it can. */
function filenameProblem(filename: string): string | undefined {
  if (filename.length === 0) return 'is empty';
  if (filename.includes('\0')) return 'contains a NUL byte';
  if (filename.includes('/') || filename.includes('\\')) return 'contains a path separator';
  // eslint-disable-next-line no-control-regex
  if (/[\u0001-\u001f\u007f]/.test(filename)) return 'contains a control character';
  if (/^\.+$/.test(filename)) return 'consists only of dots';
  if (Buffer.byteLength(filename, 'utf8') > MAX_FILENAME_BYTES) return `is longer than ${MAX_FILENAME_BYTES} bytes`;
  return undefined;
}

/**
 * The lower-cased extension of a client's filename (`Photo.JPG` → `jpg`). A filename that is not a plain name
 * (a path, a NUL, only dots) or has no extension (`README`, `.env`, `photo.`) is refused.
 */
export function extensionOf(filename: string): string {
  const problem = filenameProblem(filename);
  if (problem !== undefined) throw new InvalidUploadFilename({ filename, problem });
  const dot = filename.lastIndexOf('.');
  // A leading dot starts a hidden name, not an extension; a trailing one leaves an empty extension.
  if (dot <= 0 || dot === filename.length - 1) throw new UploadExtensionMissing({ filename });
  return filename.slice(dot + 1).toLowerCase();
}
