/** How the guard inspects a type's bytes beyond its signature. */
export type UploadKind = 'image' | 'vector' | 'document' | 'text' | 'audio' | 'video' | 'archive';

/** A type the guard knows: its canonical MIME type, its extensions, and what the sniffer may report for it. */
export interface KnownType {
  readonly mimeType: string;
  readonly extensions: readonly string[];
  readonly kind: UploadKind;
  /** The `file-type` results that count as this type (text types usually sniff as nothing). */
  readonly sniffed: readonly string[];
}

const known = (mimeType: string, extensions: string[], kind: UploadKind, sniffed: string[] = [mimeType]) => ({
  mimeType,
  extensions,
  kind,
  sniffed,
});

/** Every type the guard can check. The allowlist of a site picks from these; an unknown type is refused. */
export const UPLOAD_CATALOGUE: readonly KnownType[] = [
  known('image/jpeg', ['jpg', 'jpeg'], 'image'),
  known('image/png', ['png'], 'image', ['image/png', 'image/apng']),
  known('image/gif', ['gif'], 'image'),
  known('image/webp', ['webp'], 'image'),
  known('image/avif', ['avif'], 'image'),
  known('image/svg+xml', ['svg'], 'vector', ['application/xml']),
  known('application/pdf', ['pdf'], 'document'),
  known('text/plain', ['txt'], 'text', ['application/xml', 'text/vtt', 'text/calendar', 'text/vcard']),
  known('text/csv', ['csv'], 'text', []),
  known('application/json', ['json'], 'text', []),
  known('text/markdown', ['md', 'markdown'], 'text', []),
  known('video/mp4', ['mp4', 'm4v'], 'video', ['video/mp4', 'video/x-m4v']),
  known('video/webm', ['webm'], 'video'),
  known('video/quicktime', ['mov'], 'video'),
  known('audio/mpeg', ['mp3'], 'audio'),
  known('audio/wav', ['wav'], 'audio'),
  known('audio/ogg', ['ogg', 'oga', 'opus'], 'audio', ['audio/ogg', 'audio/ogg; codecs=opus']),
  known('audio/flac', ['flac'], 'audio'),
  known('application/zip', ['zip'], 'archive'),
  known('application/gzip', ['gz'], 'archive'),
];

const byMime = new Map(UPLOAD_CATALOGUE.map((t) => [t.mimeType, t]));

/** The consistency table of rule 3: each known MIME type with the extensions a file of that type may carry. */
export const EXTENSIONS_BY_MIME_TYPE: ReadonlyMap<string, ReadonlySet<string>> = new Map(
  UPLOAD_CATALOGUE.map((t) => [t.mimeType, new Set(t.extensions)]),
);

/** The catalogue entry of a canonical (lower-case, parameterless) MIME type. */
export function knownType(mimeType: string): KnownType | undefined {
  return byMime.get(mimeType);
}

/** The declared MIME type's essence, lower-cased and without parameters (`Text/Plain; charset=utf-8` → `text/plain`). */
export function mimeEssence(declared: string): string {
  return (declared.split(';', 1)[0] ?? '').trim().toLowerCase();
}

const pick = (kinds: UploadKind[], extra: string[] = []) =>
  UPLOAD_CATALOGUE.filter((t) => kinds.includes(t.kind) || extra.includes(t.mimeType));
const defaults = pick(
  ['image', 'vector'],
  [
    'application/pdf',
    'text/plain',
    'text/csv',
    'application/json',
    'text/markdown',
    'video/mp4',
    'video/webm',
    'audio/mpeg',
    'audio/wav',
    'audio/ogg',
  ],
);

/** The spec's default upload policy: images (SVG included), PDF, text, common audio and video; no archives. */
export const DEFAULT_UPLOAD_POLICY = {
  maxBytes: 100 * 1024 * 1024,
  allowedMimeTypes: defaults.map((t) => t.mimeType),
  allowedExtensions: defaults.flatMap((t) => t.extensions),
  maxPixels: 100_000_000,
} as const satisfies {
  maxBytes: number;
  allowedMimeTypes: readonly string[];
  allowedExtensions: readonly string[];
  maxPixels: number;
};
