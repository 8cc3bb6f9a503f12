import { z } from 'zod';
import type { Config } from '../../config.ts';
import {
  DEFAULT_UPLOAD_POLICY,
  EXTENSIONS_BY_MIME_TYPE,
  UPLOAD_CATALOGUE as CATALOGUE,
} from './upload-guard/catalogue.ts';

/** The catalogue's extensions of some MIME types (unknown types have none). */
const extensionsOf = (mimeTypes: readonly string[]): string[] => [
  ...new Set(mimeTypes.flatMap((m) => [...(EXTENSIONS_BY_MIME_TYPE.get(m) ?? [])])),
];

/** The largest cap a site or the environment may set (5 GiB). */
export const MAX_UPLOAD_BYTES = 5 * 1024 ** 3;

const known = new Set(CATALOGUE.map((t) => t.mimeType));
const knownExtensions = new Set(CATALOGUE.flatMap((t) => t.extensions));

const MimeType = z
  .string()
  .max(100)
  .refine((m) => known.has(m), { message: 'not a type of the catalogue (GET /api/v1/uploads/config)' });
const Extension = z
  .string()
  .max(20)
  .transform((e) => e.replace(/^\./, '').toLowerCase())
  .refine((e) => knownExtensions.has(e), { message: 'not an extension of the catalogue' });

/** A site's `upload_policy` setting (PUT /api/v1/uploads/config, PATCH /api/v1/site): each key optional. */
export const UploadPolicyInput = z
  .object({
    maxBytes: z.number().int().min(1).max(MAX_UPLOAD_BYTES),
    allowedMimeTypes: z.array(MimeType).max(200),
    allowedExtensions: z.array(Extension).max(200),
  })
  .partial()
  .strict();
export type UploadPolicyInput = z.infer<typeof UploadPolicyInput>;

/** The policy an upload is checked against. */
export interface UploadPolicy {
  maxBytes: number;
  allowedMimeTypes: readonly string[];
  allowedExtensions: readonly string[];
  /** Images declaring more pixels are refused from their header (decompression bombs). */
  maxPixels: number;
}

const list = (v: string | undefined) =>
  v === undefined
    ? undefined
    : v
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean);

/**
 * Resolves each part in order (spec, upload guard rule 6): the site's `upload_policy`, then FILE_UPLOAD_MAX_BYTES /
 * FILE_UPLOAD_ALLOWED_MIME_TYPES / FILE_UPLOAD_ALLOWED_EXTENSIONS, then the defaults. A site that lists MIME types
 * without extensions allows the catalogue's extensions of those types.
 */
export function resolveUploadPolicy(site: unknown, config: Config): UploadPolicy {
  const s = storedPolicy(site);
  const envMimes = list(config.FILE_UPLOAD_ALLOWED_MIME_TYPES);
  const envExtensions = list(config.FILE_UPLOAD_ALLOWED_EXTENSIONS)?.map((e) => e.replace(/^\./, '').toLowerCase());
  return {
    maxBytes: s.maxBytes ?? config.FILE_UPLOAD_MAX_BYTES ?? DEFAULT_UPLOAD_POLICY.maxBytes,
    allowedMimeTypes: s.allowedMimeTypes ?? envMimes ?? DEFAULT_UPLOAD_POLICY.allowedMimeTypes,
    allowedExtensions:
      s.allowedExtensions ??
      (s.allowedMimeTypes ? extensionsOf(s.allowedMimeTypes) : undefined) ??
      envExtensions ??
      (envMimes ? extensionsOf(envMimes) : undefined) ??
      DEFAULT_UPLOAD_POLICY.allowedExtensions,
    maxPixels: DEFAULT_UPLOAD_POLICY.maxPixels,
  };
}

/**
 * A site's stored `upload_policy`, read key by key: a part that does not hold (written before a rule, or through
 * PATCH /site, which checks the shape only) falls back on its own, never taking the others with it. Types outside
 * the catalogue stay in a list and simply match nothing (the guard refuses unknown types).
 */
function storedPolicy(site: unknown): UploadPolicyInput {
  const raw = (typeof site === 'object' && site !== null ? site : {}) as Record<string, unknown>;
  const out: UploadPolicyInput = {};
  const cap = UploadPolicyInput.shape.maxBytes.safeParse(Object.hasOwn(raw, 'maxBytes') ? raw.maxBytes : undefined);
  if (cap.success && cap.data !== undefined) out.maxBytes = cap.data;
  const strings = (key: string) => {
    const v = Object.hasOwn(raw, key) ? raw[key] : undefined;
    return Array.isArray(v)
      ? v.filter((x): x is string => typeof x === 'string').map((x) => x.toLowerCase())
      : undefined;
  };
  const mimes = strings('allowedMimeTypes');
  if (mimes) out.allowedMimeTypes = mimes;
  const extensions = strings('allowedExtensions')?.map((e) => e.replace(/^\./, ''));
  if (extensions) out.allowedExtensions = extensions;
  return out;
}
