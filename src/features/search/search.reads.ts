import type { AppDeps } from '../../deps.ts';
import { siteOf, type Principal } from '../../kernel/http/access.ts';
import { searchText } from '../../platform/db/text-search.ts';
import { pgSearchIndex } from '../../../projections/search/index.ts';
import { SearchQueryRequired, SearchQueryTooLong } from './search.errors.ts';
import { searchScopes } from './search.scopes.ts';
import { typesenseOf } from './typesense.ts';
import type { SearchHit, SearchIndex } from '../../../projections/search/index.ts';

/** The longest search, in characters after trimming (longer is a 400, never a slow query). */
export const MAX_QUERY_CHARS = 1000;

/** The engine behind the search route: Typesense when configured, else PostgreSQL full-text search. */
export const searchIndexOf = (deps: Pick<AppDeps, 'db' | 'config'>): SearchIndex =>
  typesenseOf(deps)?.index ?? pgSearchIndex(deps.db);

/** The caller's words as every engine receives them: trimmed, NFC, at most MAX_QUERY_CHARS. */
export function searchWords(q: string): string {
  const words = q.normalize('NFC').trim();
  if (!words) throw new SearchQueryRequired();
  if ([...words].length > MAX_QUERY_CHARS) throw new SearchQueryTooLong({ limit: MAX_QUERY_CHARS });
  return searchText(words, MAX_QUERY_CHARS * 2);
}

export interface SearchInput {
  q: string;
  collection: string | null;
  limit: number;
  offset: number;
  /** X-Svc-Locale of the request: the items are shown translated as their reads show them. */
  locale: string | null;
}

/**
 * A search as the route answers it: the hits the engine finds within the caller's scopes, each with its item as
 * the items API shows it to the caller (the same guard, fields and presentation); a hit whose item the items API
 * no longer shows (changed meanwhile) is left out.
 */
export async function runSearch(deps: AppDeps, req: Principal, input: SearchInput) {
  const q = searchWords(input.q);
  const named = input.collection === null ? null : await deps.items.collection(req, input.collection);
  const schema = named?.schema ?? (await deps.schemas.read(siteOf(req)));
  const scopes = await searchScopes(deps, req, schema, input.collection);
  const { hits, total } = await searchIndexOf(deps).search({
    siteId: siteOf(req),
    q,
    scopes,
    limit: input.limit,
    offset: input.offset,
    schema,
  });
  const items = await itemsOf(deps, req, input.locale, hits);
  const data = hits.flatMap((h) => {
    const item = items.get(h.collection)?.get(h.id);
    return item ? [{ collection: h.collection, id: h.id, score: h.score, highlights: h.highlights, item }] : [];
  });
  return { data, meta: { total, limit: input.limit, offset: input.offset } };
}

/** The hits' items through the items API's list query (one per collection), by collection and id. */
async function itemsOf(deps: AppDeps, caller: Principal, locale: string | null, hits: SearchHit[]) {
  const { items } = deps;
  const ids = new Map<string, string[]>();
  for (const h of hits) ids.set(h.collection, [...(ids.get(h.collection) ?? []), h.id]);
  const out = new Map<string, Map<string, Record<string, unknown>>>();
  for (const [collection, list] of ids) {
    const s = await items.collection(caller, collection);
    const query = items.read.query({ filter: { id: { _in: list } }, limit: list.length, locale });
    const page = await items.read.list(caller, s, query);
    const records = page.data as Record<string, unknown>[];
    out.set(collection, new Map(records.map((r) => [String(r.id), r])));
  }
  return out;
}
