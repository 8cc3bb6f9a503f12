import { z } from 'zod';
import { isInheritedName } from '../../../kernel/safe/keys.ts';
import {
  FIELD_TYPES,
  NAME_PATTERN,
  PRIMARY_KEY_TYPES,
  RELATION_KINDS,
} from '../../../contracts/schema/schema.types.ts';
import { RelationRecord } from '../../../contracts/schema/schema.records.ts';

/** Most names one list may hold (a site's collections fit; a pasted dump does not). */
export const MAX_LISTED = 200;

/**
 * A comma list of collection names: blanks around and between commas are dropped; each name must be one a
 * collection can have, else 400 naming its position (`query.include.3`).
 */
const names = z
  .string()
  .max(MAX_LISTED * 64)
  .transform((s, ctx) => {
    const list = s
      .split(',')
      .map((n) => n.trim())
      .filter(Boolean);
    if (list.length > MAX_LISTED) {
      ctx.addIssue({ code: 'custom', message: `at most ${MAX_LISTED} collection names` });
      return z.NEVER;
    }
    list.forEach((n, i) => {
      if (!NAME_PATTERN.test(n) || isInheritedName(n))
        ctx.addIssue({ code: 'custom', path: [i], message: 'not a collection name (a-z, 0-9 and _, from a letter)' });
    });
    return list;
  })
  .describe('Comma-separated collection names');

export const TypegenQuery = z
  .object({
    include: names.optional().describe('Only these collections (comma list); unknown names answer 400'),
    exclude: names.optional().describe('Leave these collections out (comma list); unknown names answer 400'),
    asOf: z.iso
      .datetime({ offset: true })
      .optional()
      .describe('The schema as it was at this time (ISO 8601); answers are not cached'),
  })
  .strict();

const ManifestField = z.object({
  name: z.string(),
  type: z.enum(FIELD_TYPES),
  required: z.boolean(),
  nullable: z.boolean(),
  readonly: z.boolean(),
  generated: z.boolean(),
  system: z.boolean(),
  encrypted: z.boolean(),
  primaryKey: z.boolean(),
  branded: z.string().optional().describe('The key type the field holds, e.g. ArticlesId'),
  kind: z.enum(RELATION_KINDS).optional(),
  target: z.string().optional(),
  choices: z.array(z.string()).optional(),
});

const ManifestCollection = z.object({
  name: z.string(),
  primaryKey: z.string().describe('The name of the primary key field'),
  primaryKeyField: z.string().describe('The same name as primaryKey'),
  primaryKeyType: z.enum(PRIMARY_KEY_TYPES),
  fields: z.array(ManifestField),
  relations: z.array(RelationRecord),
});

export const TypegenManifestBody = z
  .object({ version: z.literal(2), site: z.string(), collections: z.array(ManifestCollection) })
  .meta({ id: 'TypegenManifest' });
