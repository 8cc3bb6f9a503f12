/**
 * File fields' pure parts: what the editor shows of a file record, whether and how it previews an image (the asset's
 * transform parameters and the size they give), and how byte counts read.
 */

/** The collection of file records: an m2o to it makes a field a file field. */
export const FILES_COLLECTION = 'files';

/** A file record as `GET /files/:id` answers it (the parts the editor shows); a field rule may hide some. */
export interface FileRecord {
  id: string;
  filename?: string | null;
  title?: string | null;
  type?: string | null;
  filesize?: number | string | null;
  width?: number | null;
  height?: number | null;
}

/** The raster types the service transforms (other files show no preview). */
const TRANSFORMABLE = new Set(['image/jpeg', 'image/png', 'image/gif', 'image/webp', 'image/avif']);

/** The largest width and height of a preview, in CSS pixels. */
export const PREVIEW_BOX = 160;

export interface PreviewTransform {
  width: number;
  height: number;
  fit: 'inside';
}

/**
 * The transform of a file's preview, or null when it has none (not an image the service transforms, or its size is
 * unknown): the image fitted inside the preview box, never enlarged (the transforms would scale a small image up).
 */
export function previewTransform(file: FileRecord, box = PREVIEW_BOX): PreviewTransform | null {
  if (!file.type || !TRANSFORMABLE.has(file.type)) return null;
  const { width, height } = file;
  if (!width || !height || width < 1 || height < 1) return null;
  return { width: Math.min(box, width), height: Math.min(box, height), fit: 'inside' };
}

/** The size a preview comes out at: the source scaled to fit inside the transform's box (as the service fits it). */
export function previewSize(file: FileRecord, t: PreviewTransform): { width: number; height: number } {
  const sw = file.width!;
  const sh = file.height!;
  const scale = Math.min(t.width / sw, t.height / sh);
  return { width: Math.round(sw * scale), height: Math.round(sh * scale) };
}

const UNITS = ['bytes', 'KB', 'MB', 'GB', 'TB'] as const;

/** A byte count as people read it (1 KB = 1024 bytes), or null when it is not a count. */
export function formatBytes(value: number | string | null | undefined): string | null {
  const n = typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : value;
  if (typeof n !== 'number' || !Number.isFinite(n) || n < 0) return null;
  let size = n;
  let unit = 0;
  while (size >= 1024 && unit < UNITS.length - 1) {
    size /= 1024;
    unit++;
  }
  if (unit === 0) return n === 1 ? '1 byte' : `${n} bytes`;
  return `${size < 10 ? Math.round(size * 10) / 10 : Math.round(size)} ${UNITS[unit]}`;
}

/** What the editor says of a file: its name, type, size and pixels, each as far as the record shows it. */
export function fileSummary(file: FileRecord): string {
  const parts = [file.filename ?? file.id, file.type, formatBytes(file.filesize)];
  if (file.width && file.height) parts.push(`${file.width} × ${file.height}`);
  return parts.filter((p): p is string => typeof p === 'string' && p !== '').join(' · ');
}

/** The text alternative of a file's image: its title, else its name, else its id. */
export const altOf = (file: FileRecord): string => file.title?.trim() || file.filename || file.id;

/** A file field's value as the API may answer it (an id, or the file expanded) as the id the form holds. */
export function fileIdOf(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number') return String(value);
  if (value && typeof value === 'object' && 'id' in value) return fileIdOf((value as { id: unknown }).id);
  return '';
}
