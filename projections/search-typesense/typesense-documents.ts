import type { SearchDocument, SearchHighlight, SearchWeight } from '../search/index.ts';

/**
 * How items become Typesense documents and Typesense answers become hits: pure, so the mapping is tested here
 * without a server. Every engine indexes what `searchDocument` builds; Typesense gets each field twice, as written
 * (`t_<field>`, for the exact-match boost) and without its accents (`u_<field>`, so `ha noi` finds `Hà Nội`).
 */

/** The alias a site's collection is searched under (site ids hold no `_`, so `__` splits the two). */
export const aliasOf = (prefix: string, siteId: string, collection: string): string =>
  `${prefix}${siteId}__${collection}`;

/**
 * A new physical collection behind an alias: a rebuild fills one while the alias still serves the old one. The `-`
 * cannot occur in a collection name, so no other collection's alias starts with `<alias>-g`.
 */
export const generationOf = (alias: string, now: number): string => `${alias}-g${now.toString(36)}`;

/** Whether a name is one of the alias's generations. */
export const isGenerationOf = (alias: string, name: string): boolean =>
  /^-g[0-9a-z]+$/.test(name.slice(alias.length)) && name.startsWith(alias);

/** The site and collection an alias of this prefix names, or null for a name this instance did not make. */
export function aliasParts(prefix: string, alias: string): { siteId: string; collection: string } | null {
  if (!alias.startsWith(prefix)) return null;
  const m = /^([a-z0-9][a-z0-9-]{1,62})__([a-z][a-z0-9_]{0,62})$/.exec(alias.slice(prefix.length));
  return m ? { siteId: m[1]!, collection: m[2]! } : null;
}

export const writtenField = (field: string): string => `t_${field}`;
export const plainField = (field: string): string => `u_${field}`;

/** Text without its accents: decomposed, marks dropped, and the Vietnamese đ/Đ (a letter, not a mark) as d/D. */
export function plainText(s: string): string {
  return s
    .normalize('NFD')
    .replace(/\p{M}+/gu, '')
    .replace(/đ/g, 'd')
    .replace(/Đ/g, 'D')
    .normalize('NFC');
}

/** The collection schema every alias's collections share: the two copies of any field, all optional strings. */
export const COLLECTION_FIELDS = [
  { name: 't_.*', type: 'string' as const, optional: true },
  { name: 'u_.*', type: 'string' as const, optional: true },
];

export type TypesenseDocument = { id: string } & Record<string, string>;

/** One item's document: its id and both copies of each searchable field that holds text. */
export function typesenseDocument(doc: SearchDocument): TypesenseDocument {
  const out: TypesenseDocument = Object.create(null) as TypesenseDocument;
  out.id = doc.id;
  for (const f of doc.fields) {
    out[writtenField(f.field)] = f.text;
    out[plainField(f.field)] = plainText(f.text);
  }
  return out;
}

/** How much a match in a field counts, by the field's weight; the copy as written counts once more (the boost). */
export const fieldWeight = (w: SearchWeight): number => (w === 'A' ? 3 : 1);

/** What Typesense puts around a match: control characters that no indexed text holds (`searchText` drops them). */
export const MARK_START = '\u0001';
export const MARK_STOP = '\u0002';

const ESCAPES = new Map([
  ['&', '&amp;'],
  ['<', '&lt;'],
  ['>', '&gt;'],
  ['"', '&quot;'],
  ["'", '&#39;'],
]);

/** A Typesense snippet as safe HTML: the text escaped, each match in <mark>. */
export function markup(snippet: string): string {
  return snippet
    .replace(/[&<>"']/g, (c) => ESCAPES.get(c)!)
    .replaceAll(MARK_START, '<mark>')
    .replaceAll(MARK_STOP, '</mark>');
}

/** The highlights of a hit's fields, named by the item's field (either copy), one per field, only for `visible`. */
export function highlightsOf(
  found: readonly { field: string; snippet?: string }[],
  visible: ReadonlySet<string>,
): SearchHighlight[] {
  const out = new Map<string, string>();
  for (const h of found) {
    const field = h.field.slice(2);
    if (!h.snippet?.includes(MARK_START) || !visible.has(field)) continue;
    // The copy as written reads better than the unaccented one: it wins when both matched.
    if (!out.has(field) || h.field.startsWith('t_')) out.set(field, markup(h.snippet));
  }
  return [...out].map(([field, snippet]) => ({ field, snippet }));
}
