import { z } from 'zod';

/** `json` (one document) or `zip` (one JSON file per part). */
export const ExportFormatQuery = z.object({ format: z.enum(['json', 'zip']).default('json') }).strict();

/** A download: the export's bytes (`application/json` or `application/zip`), sent as an attachment. */
export const ExportFile = z.any().meta({ description: 'The export, as an attachment', format: 'binary' });

/** Whom a subject-access request is about: exactly one of `userId` and `email`. */
export const SarBody = z
  .object({
    userId: z.string().min(1).max(64).optional(),
    email: z.string().email().max(320).optional(),
    format: z.enum(['json', 'zip']).default('json'),
  })
  .strict()
  .superRefine((b, ctx) => {
    const given = Number(b.userId !== undefined) + Number(b.email !== undefined);
    if (given !== 1)
      ctx.addIssue({
        code: 'custom',
        path: [b.userId === undefined ? 'userId' : 'email'],
        message: 'give exactly one of userId and email',
      });
  });

export const SarParams = z.object({ id: z.string().regex(/^[0-9A-Za-z]{21}$/) }).strict();

/** A stored subject-access export: no personal data, only what identifies and checks it. */
export const SubjectAccessRecord = z
  .object({
    id: z.string(),
    subjectId: z.string(),
    format: z.enum(['json', 'zip']),
    createdAt: z.string(),
    size: z.number().int(),
    sha256: z.string(),
  })
  .meta({ id: 'SubjectAccessRecord' });
