import { z } from 'zod';
import { checkCallerKey } from '../../../platform/http/caller-key.ts';

/** A media key: one path segment with an extension (the guard checks the extension against the type). */
export const MediaKey = z
  .string()
  .max(200)
  .regex(
    /^[A-Za-z0-9][A-Za-z0-9_-]*(\.[A-Za-z0-9_-]+)*\.[A-Za-z0-9]{1,10}$/,
    'a media key is letters, digits, _ and -, with dots between parts, ending in an extension (logo.png)',
  )
  .superRefine(checkCallerKey);

/** A media object as the API shows it. */
export const MediaRecord = z
  .object({
    key: z.string(),
    size: z.number().int(),
    mimeType: z.string(),
    extension: z.string(),
    sha256: z.string(),
    width: z.number().int().nullable(),
    height: z.number().int().nullable(),
    createdAt: z.string(),
    createdBy: z.string(),
    updatedAt: z.string(),
    updatedBy: z.string(),
  })
  .meta({ id: 'Media' });

/** GET /api/v1/uploads/config: the policy in effect and the types the service knows. */
export const UploadConfig = z
  .object({
    maxBytes: z.number().int(),
    allowedMimeTypes: z.array(z.string()),
    allowedExtensions: z.array(z.string()),
    catalogue: z.array(z.object({ mimeType: z.string(), extensions: z.array(z.string()), kind: z.string() })),
  })
  .meta({ id: 'UploadConfig' });

/** Binary answers (downloads): the bytes as stored. */
export const Binary = z.any().meta({ description: 'The bytes of the object', format: 'binary' });

/** A file record's id. */
export const FileId = z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, 'a file id');
const Focal = z.object({ x: z.number().min(0).max(1), y: z.number().min(0).max(1) }).strict();
/** What a request may set on a file record; the rest comes from its bytes. */
export const FileValues = z
  .object({
    title: z.string().max(300).nullable(),
    description: z.string().max(10_000).nullable(),
    tags: z.array(z.string().min(1).max(100)).max(50).nullable(),
    folder: z
      .string()
      .regex(/^[A-Za-z0-9_-]{1,64}$/, 'a folder id')
      .nullable(),
    focal_point: Focal.nullable(),
  })
  .partial()
  .strict();

export type FileValues = z.infer<typeof FileValues>;
