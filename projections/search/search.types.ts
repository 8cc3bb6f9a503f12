import type { Filter } from '../item-documents/index.ts';
import type { SiteSchema } from '../schema/index.ts';

/**
 * The search port: what GET /api/v1/search asks of a full-text engine (PostgreSQL now, Typesense later, DESIGN §2).
 * An engine indexes the documents `searchDocument` builds from items and answers a query within the caller's
 * rights, which arrive as `SearchScope`s: nothing outside them may match, score or be highlighted.
 */

/** How much a field counts: `A` for the collection's first searchable string field (its title), `B` for others. */
export type SearchWeight = 'A' | 'B';

/** The factor each weight multiplies a field's rank by. */
export const WEIGHT_FACTORS: Readonly<Record<SearchWeight, number>> = { A: 1, B: 0.4 };

/** One indexed field of an item: its text (NFC, capped) and weight. */
export interface SearchDocumentField {
  field: string;
  text: string;
  weight: SearchWeight;
}

/** What an engine indexes of one item: its searchable, non-sealed fields that hold text. */
export interface SearchDocument {
  collection: string;
  id: string;
  fields: SearchDocumentField[];
}

/**
 * One collection the caller may search: the fields it may read that are searchable (the only fields that may match
 * or be highlighted), and the rows it may read (the rule's filter in the filter language; null for all). Deleted
 * items never match.
 */
export interface SearchScope {
  collection: string;
  fields: readonly string[];
  rows: Filter | null;
}

export interface SearchRequest {
  siteId: string;
  /** The caller's words (web-search syntax: "a phrase", -not, or), NFC, trimmed, non-empty. */
  q: string;
  scopes: readonly SearchScope[];
  limit: number;
  offset: number;
  /** The site's schema, for engines that evaluate `rows` themselves (compiled to SQL by PostgreSQL). */
  schema: SiteSchema;
}

/** A field's text around the matches, HTML-escaped, each match in `<mark>…</mark>`. */
export interface SearchHighlight {
  field: string;
  snippet: string;
}

export interface SearchHit {
  collection: string;
  id: string;
  /** Higher is better; only the order matters, not the scale (engines differ). */
  score: number;
  highlights: SearchHighlight[];
}

export interface SearchResult {
  hits: SearchHit[];
  /** Items that match in all, across the pages. */
  total: number;
}

/** A full-text engine behind GET /api/v1/search. */
export interface SearchIndex {
  search(request: SearchRequest): Promise<SearchResult>;
}
