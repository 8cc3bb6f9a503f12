import { z } from 'zod';
import { ErrorObjectSchema } from '../../../kernel/http/envelope.ts';

const Counts = z.object({
  create: z.number().int(),
  update: z.number().int(),
  unchanged: z.number().int(),
  delete: z.number().int(),
});
const Risk = z.enum(['low', 'medium', 'high']);

/** The dry-run and apply result (spec "Schema administration"), with the plan's operations. */
export const ImportResult = z
  .object({
    valid: z.boolean(),
    errors: z.array(ErrorObjectSchema),
    diff: z.object({
      collections: Counts,
      fields: Counts,
      relations: Counts,
      webhooks: Counts,
      settings: Counts,
      risk: Risk,
    }),
    operations: z.array(
      z.object({
        resource: z.enum(['collections', 'fields', 'relations', 'webhooks', 'settings']),
        action: z.enum(['create', 'update', 'delete']),
        key: z.string(),
        risk: Risk,
        changes: z.array(z.string()).optional(),
        reason: z.string().optional(),
      }),
    ),
    applied: z.object({ created: z.number().int(), updated: z.number().int(), deleted: z.number().int() }).optional(),
    secrets: z
      .array(z.object({ name: z.string(), secret: z.string() }))
      .optional()
      .meta({ description: 'The signing secrets of the webhooks the apply created, shown this once' }),
  })
  .meta({ id: 'ConfigImportResult' });
