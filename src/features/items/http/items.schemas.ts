import { z } from 'zod';
import { ItemListMeta } from '../../../kernel/http/envelope.ts';

/**
 * An item: the system fields (id, status, sort, created_at, created_by, updated_at, updated_by, …) beside the fields
 * its collection defines, and expanded relations where `fields` asks for them. Every key is kept.
 */
export const ItemRecord = z.record(z.string(), z.unknown()).meta({ id: 'Item' });

/** The stream version and the revision a write produced. */
export const WriteMeta = z.object({ version: z.number().int(), revisionId: z.string().nullable() });

/** A page of items with its meta; a singleton collection answers its one record (or null) instead. */
export const ItemListBody = z
  .object({ data: z.union([z.array(ItemRecord), ItemRecord.nullable()]), meta: ItemListMeta.optional() })
  .describe('A page of items, aggregate rows (aggregate, groupBy), or the record of a singleton');

export const ItemBody = z
  .object({ data: ItemRecord, meta: z.object({ draft: z.boolean() }).optional() })
  .describe('The item; with X-Svc-Draft, meta.draft tells whether a draft version was read');

export const ItemWriteBody = z.object({ data: ItemRecord, meta: WriteMeta }).describe('The item as written');

export const ItemsCreatedBody = z
  .object({
    // Optional only for the compiler (the first of a one-element list); a created item is always there.
    data: z.union([z.array(ItemRecord), ItemRecord]).optional(),
    meta: z.object({
      revisionId: z.string().nullable().optional(),
      revisionIds: z.array(z.string().nullable()).optional(),
    }),
  })
  .describe('The created item (or items, for an array body) with the revision of each');
