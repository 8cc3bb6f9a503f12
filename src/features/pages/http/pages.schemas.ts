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
