import { z } from 'zod';
import { OpenRecord } from '../../../kernel/http/envelope.ts';
import { PRESET_SCOPES } from '../../../contracts/presets/presets.events.ts';
import { pathId } from '../../../kernel/http/path-params.ts';

/** A view preset or bookmark as the API shows it, with the scope its ownership gives it. */
export const PresetRecordBody = z
  .object({
    id: z.string(),
    collection: z.string(),
    userId: z.string().nullable(),
    roleId: z.string().nullable(),
    bookmark: z.string().nullable().describe('The bookmark name; null: the default view of its scope'),
    layout: z.string().nullable(),
    layoutOptions: OpenRecord.nullable(),
    query: z.object({
      fields: z.array(z.string()).nullable(),
      filter: OpenRecord.nullable(),
      sort: z.array(z.string()).nullable(),
      limit: z.number().int().nullable(),
      search: z.string().nullable(),
    }),
    sourceScope: z.enum(PRESET_SCOPES),
    stale: z.boolean().describe('A field its filter or layout options name, or its collection, was deleted'),
    staleFields: z.array(z.string()),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .meta({ id: 'Preset' });

const Collection = z.string().min(1).max(64);
const OwnerId = z.string().min(1).max(64);

export const PresetParams = z.object({ id: pathId(64) });
export const PresetListQuery = z.object({
  collection: Collection.optional(),
  userId: OwnerId.optional().describe("A site admin's filter: one user's presets"),
  roleId: OwnerId.optional().describe("A site admin's filter: one role's presets"),
  limit: z.coerce.number().int().min(1).max(200).default(100),
  page: z.coerce.number().int().min(1).max(100_000).default(1),
});
export const PresetListMeta = z.object({
  total: z.number().int(),
  page: z.number().int(),
  pageSize: z.number().int(),
});
export const CollectionQuery = z.object({ collection: Collection });
export const BookmarkListMeta = z.object({ total: z.number().int() });
