import { z } from 'zod';
import { itemHttp } from '../../items/index.ts';

const { ItemRecord } = itemHttp;

/** GET /api/v1/search: `q` in web-search syntax ("a phrase", -not, or); without `collection`, every readable one. */
export const SearchQuery = z.object({
  q: z.string().describe('The words to find: "a phrase", -excluded, a or b; accents and case do not matter'),
  collection: z.string().min(1).max(64).optional().describe('One collection; all the caller may read when left out'),
  limit: z.coerce.number().int().min(1).max(200).default(20),
  offset: z.coerce.number().int().min(0).max(1_000_000_000).default(0),
});

const SearchHitRecord = z
  .object({
    collection: z.string(),
    id: z.string(),
    score: z.number(),
    highlights: z.array(
      z.object({
        field: z.string(),
        snippet: z.string().describe('The text around the matches, HTML-escaped, each match in <mark>'),
      }),
    ),
    item: ItemRecord,
  })
  .meta({ id: 'SearchHit' });

export const SearchBody = z.object({
  data: z.array(SearchHitRecord),
  meta: z.object({ total: z.number().int(), limit: z.number().int(), offset: z.number().int() }),
});
