import { sql, type RawBuilder } from 'kysely';

/**
 * The full-text expressions every search runs on (DESIGN §2): the `simple` configuration (no stemming, no stop
 * words, so any language indexes the same way) over lower-cased text with its accents removed by `svc_unaccent`
 * (migration 013), which makes `ha noi` find `Hà Nội`. Text and queries are NFC-normalised before they reach SQL.
 */

/** The most characters of one value that are indexed (a tsvector holds at most 1 MB). */
export const MAX_INDEXED_CHARS = 100_000;

/** What ts_headline puts around a match: control characters that `searchText` takes out of every indexed text. */
export const MARK_START = '\u0001';
export const MARK_STOP = '\u0002';

// Control characters (NUL cannot be stored; the rest could pass for the highlight marks), but not tab and newlines.
// eslint-disable-next-line no-control-regex
const CONTROLS = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/g;

/** Text as it is indexed and searched: NFC (decomposed input finds composed text), without control characters. */
export function searchText(s: string, max = MAX_INDEXED_CHARS): string {
  return s.normalize('NFC').replace(CONTROLS, ' ').slice(0, max);
}

/** The accent-insensitive vector of a text (an expression of the text given). */
export const searchVector = (text: RawBuilder<unknown>): RawBuilder<unknown> =>
  sql`to_tsvector('simple', svc_unaccent(lower(${text})))`;

/** The vector of the text as written, accents kept: an exact match scores more. */
export const exactVector = (text: RawBuilder<unknown>): RawBuilder<unknown> =>
  sql`to_tsvector('simple', lower(${text}))`;

/** The accent-insensitive query of web-search syntax ("phrase", -not, or); never an error, maybe empty. */
export const searchQuery = (q: string): RawBuilder<unknown> =>
  sql`websearch_to_tsquery('simple', svc_unaccent(lower(${q}::text)))`;

/** The same query with its accents kept, for the exact-match boost. */
export const exactQuery = (q: string): RawBuilder<unknown> => sql`websearch_to_tsquery('simple', lower(${q}::text))`;

/**
 * The words of a web-search query that a match must contain (phrases' words included), without the excluded ones
 * (`-word`, `-"a phrase"`) and the `or` operator: what highlights mark. Empty when the query only excludes, which
 * would match nearly everything: such a search finds nothing.
 */
export function positiveTerms(q: string): string {
  const out: string[] = [];
  for (const m of q.matchAll(/(^|\s)(-?)"([^"]*)"?|(\S+)/g)) {
    if (m[3] !== undefined) {
      if (m[2] !== '-') out.push(m[3]);
      continue;
    }
    const word = m[4]!;
    if (word.startsWith('-') || word.toLowerCase() === 'or') continue;
    out.push(word);
  }
  return out.join(' ').trim();
}
