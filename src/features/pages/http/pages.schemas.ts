import { z } from 'zod';

/** A page as the API returns it; `layoutConfig` is the editor's own structure and is kept whole. */
export const PageRecord = z
  .object({
    id: z.string(),
    slug: z.string(),
    title: z.string(),
    status: z.enum(['draft', 'published']),
    layoutConfig: z.record(z.string(), z.unknown()).nullable(),
    version: z.number().int(),
    createdAt: z.string(),
    createdBy: z.string(),
    updatedAt: z.string(),
    updatedBy: z.string(),
  })
  .meta({ id: 'Page' });

export const PageListMeta = z.object({ total: z.number().int(), page: z.number().int(), pageSize: z.number().int() });

/**
 * A published page as delivered: the page without its editorial bookkeeping, and each item its blocks reference,
 * keyed `collection/id` (see itemKey), with the fields the blocks ask for (null: missing, unpublished or unknown).
 * The handler sends the cached, pre-serialised JSON text, which fastify passes through as it is.
 */
export const DeliveredPageBody = z
  .object({
    data: z.object({
      page: z.object({
        id: z.string(),
        slug: z.string(),
        title: z.string(),
        layoutConfig: z.record(z.string(), z.unknown()).nullable(),
        updatedAt: z.string(),
      }),
      items: z.record(z.string(), z.record(z.string(), z.unknown()).nullable()),
    }),
  })
  .describe('The published page with the items it references');

/** A revalidation whose If-None-Match names the current ETag: no body. */
export const NotModified = z.null().optional().describe('Not Modified: If-None-Match names the current ETag');
