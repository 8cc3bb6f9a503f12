import { createHash } from 'node:crypto';
import { z } from 'zod';
import { checkCallerKey } from '../../../platform/http/caller-key.ts';

/** The largest width or height a transform asks for or produces (spec "Limits": image dimension). */
export const MAX_DIMENSION = 5000;

export const FORMATS = ['jpeg', 'png', 'webp', 'avif'] as const;
export type OutputFormat = (typeof FORMATS)[number];
export const FITS = ['cover', 'contain', 'inside', 'outside', 'fill'] as const;
export type Fit = (typeof FITS)[number];

/** Whole numbers written as plain digits: `1e3`, `0x10` or `1.0` are not sizes. */
const digits = (min: number, max: number) =>
  z
    .string()
    .regex(/^\d{1,9}$/, 'a whole number written in digits')
    .transform(Number)
    .pipe(z.number().int().min(min).max(max));
const dimension = digits(1, MAX_DIMENSION);
const Focal = z
  .string()
  .max(40)
  .regex(/^\s*[0-9.]+\s*,\s*[0-9.]+\s*$/, "a focal point is 'x,y', each between 0 and 1")
  .transform((v, ctx) => {
    const [x, y] = v.split(',').map((n) => Number(n));
    const ok = [x, y].every((n) => n !== undefined && Number.isFinite(n) && n >= 0 && n <= 1);
    if (!ok) ctx.addIssue({ code: 'custom', message: "a focal point is 'x,y', each between 0 and 1" });
    return { x: x!, y: y! };
  });
export const PresetKey = z
  .string()
  .regex(
    /^[a-z0-9][a-z0-9_-]{0,63}$/,
    'a preset key is 1–64 characters: a-z, 0-9, _ and -, starting with a letter or digit',
  )
  .superRefine(checkCallerKey);

/** The transform parameters of GET /api/v1/media/:key and /api/v1/assets/:id (spec "Files and media"). */
export const TransformQuery = z
  .object({
    width: dimension,
    height: dimension,
    format: z.enum([...FORMATS, 'auto']),
    quality: digits(1, 100),
    fit: z.enum(FITS),
    focal: Focal,
    preset: PresetKey,
  })
  .partial()
  .strict();
export type TransformQuery = z.infer<typeof TransformQuery>;

/** A transform with every choice made: what a derivative is keyed by. */
export interface Transform {
  width?: number;
  height?: number;
  fit: Fit;
  format: OutputFormat;
  quality: number;
  focal?: { x: number; y: number };
}

/** Parameters as a preset stores them (`format: auto` resolves per request). */
export type TransformSpec = Omit<TransformQuery, 'preset'>;

/** Whether the query asks for a transform at all. */
export const asksTransform = (q: TransformQuery): boolean => Object.keys(q).length > 0;

/** Whether the query names its own parameters (not only a preset, with or without a format): those count. */
export const adHoc = (q: TransformQuery): boolean => Object.keys(q).some((k) => k !== 'preset' && k !== 'format');

const DSL_KEYS = new Map<string, keyof TransformSpec>([
  ['w', 'width'],
  ['h', 'height'],
  ['fit', 'fit'],
  ['format', 'format'],
  ['q', 'quality'],
  ['focal', 'focal'],
]);

/**
 * The preset DSL: the transform parameters as a compact string, `key=value` pairs joined by `,` with the keys `w`,
 * `h`, `fit`, `format`, `q` and `focal` (its `x:y` pair), e.g. `w=800,h=600,fit=cover,format=webp,q=80,focal=0.5:0.3`.
 * Each key at most once; the values are checked like the query's.
 */
export const TransformDsl = z
  .string()
  .min(1)
  .max(200)
  .transform((dsl, ctx): TransformSpec => {
    const raw = new Map<string, string>();
    for (const part of dsl.split(',')) {
      const m = /^\s*([a-z]+)\s*=\s*([A-Za-z0-9.:]+)\s*$/.exec(part);
      const name = m ? DSL_KEYS.get(m[1]!) : undefined;
      if (!m || !name) {
        ctx.addIssue({ code: 'custom', message: `not a transform parameter: ${JSON.stringify(part.slice(0, 40))}` });
        return z.NEVER;
      }
      if (raw.has(name)) {
        ctx.addIssue({ code: 'custom', message: `${m[1]} is given twice` });
        return z.NEVER;
      }
      raw.set(name, name === 'focal' ? m[2]!.replace(':', ',') : m[2]!);
    }
    const parsed = TransformQuery.omit({ preset: true }).safeParse(Object.fromEntries(raw));
    if (!parsed.success) {
      for (const issue of parsed.error.issues)
        ctx.addIssue({ code: 'custom', message: `${issue.path.join('.')}: ${issue.message}` });
      return z.NEVER;
    }
    return parsed.data;
  });

/** A spec back as the DSL, in a fixed order. */
export function formatDsl(spec: TransformSpec): string {
  const parts: string[] = [];
  if (spec.width !== undefined) parts.push(`w=${spec.width}`);
  if (spec.height !== undefined) parts.push(`h=${spec.height}`);
  if (spec.fit !== undefined) parts.push(`fit=${spec.fit}`);
  if (spec.format !== undefined) parts.push(`format=${spec.format}`);
  if (spec.quality !== undefined) parts.push(`q=${spec.quality}`);
  if (spec.focal !== undefined) parts.push(`focal=${spec.focal.x}:${spec.focal.y}`);
  return parts.join(',');
}

/** `format=auto` (or none) by the request's Accept: AVIF, then WebP, then the source's own (PNG keeps PNG). */
export function resolveFormat(asked: TransformSpec['format'], accept: string, sourceMime: string): OutputFormat {
  if (asked && asked !== 'auto') return asked;
  if (asked === 'auto') {
    if (/\bimage\/avif\b/.test(accept)) return 'avif';
    if (/\bimage\/webp\b/.test(accept)) return 'webp';
  }
  if (sourceMime === 'image/png' || sourceMime === 'image/gif') return 'png';
  if (sourceMime === 'image/webp') return 'webp';
  if (sourceMime === 'image/avif') return 'avif';
  return 'jpeg';
}

/** The canonical text of a transform: the same image asked for in any spelling has one derivative. */
export function canonical(t: Transform): string {
  return [
    `w=${t.width ?? ''}`,
    `h=${t.height ?? ''}`,
    `fit=${t.fit}`,
    `format=${t.format}`,
    `q=${t.quality}`,
    `focal=${t.focal ? `${t.focal.x}:${t.focal.y}` : ''}`,
  ].join(',');
}

/** The derivative's name: a digest of the canonical parameters, with the format's extension. */
export function derivativeName(t: Transform): string {
  const digest = createHash('sha256').update(canonical(t)).digest('hex').slice(0, 32);
  return `${digest}.${t.format === 'jpeg' ? 'jpg' : t.format}`;
}

export const DEFAULT_QUALITY = 80;
