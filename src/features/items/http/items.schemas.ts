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

/** A named version of an item: its draft values beside main, and whether main changed since the snapshot. */
export const VersionRecord = z
  .object({
    key: z.string(),
    name: z.string(),
    data: ItemRecord,
    mainChanged: z.boolean(),
    created_at: z.string(),
    created_by: z.string(),
    updated_at: z.string(),
  })
  .meta({ id: 'ItemVersion' });

/** Main, the version and what the version changes, each shown like a record of the collection. */
export const VersionCompareBody = z.object({
  data: z.object({ main: ItemRecord.optional(), version: ItemRecord.optional(), changes: ItemRecord }),
  meta: z.object({ mainChanged: z.boolean() }),
});

/** The item after a promote; meta.mainDiverged tells whether main had changed since the snapshot. */
export const PromoteBody = z.object({
  data: ItemRecord,
  meta: WriteMeta.extend({ mainDiverged: z.boolean() }),
});

/** A revision of an item: the values after the change, what the change set, who made it and when. */
export const RevisionRecord = z
  .object({
    id: z.string(),
    collection: z.string(),
    itemId: z.string(),
    version: z.number().int(),
    action: z.string(),
    data: ItemRecord,
    delta: ItemRecord,
    actor: z.object({ type: z.string(), id: z.string(), onBehalfOf: z.string().optional() }),
    committed: z.boolean(),
    timestamp: z.string(),
  })
  .meta({ id: 'Revision' });

export const RevisionListMeta = z.object({
  total: z.number().int(),
  limit: z.number().int(),
  offset: z.number().int(),
});

/**
 * What references an item, per relation: how many items point at it, what a delete does to them (`onDelete`) and
 * the ids of up to five the caller may read; `blocking` when a restrict relation holds a delete up.
 */
export const DependentsBody = z
  .object({
    data: z.object({
      blocking: z.boolean(),
      dependents: z.array(
        z.object({
          relation: z.string(),
          collection: z.string(),
          field: z.string(),
          onDelete: z.enum(['restrict', 'set null', 'cascade']),
          count: z.number().int(),
          sample: z.array(z.string()),
        }),
      ),
    }),
  })
  .describe('The records that reference the item');
