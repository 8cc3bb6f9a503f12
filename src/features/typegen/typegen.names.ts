/**
 * TypeScript names for collections: snake_case becomes PascalCase, and names that would meet (`a_b` and `a__b`, a
 * collection `articles_id` and the key type of `articles`, a collection `schema` and the `Schema` type) are told
 * apart by a number, the first collection in name order keeping the plain name. The manifest's `branded` values
 * and the generator use the same rule, so the key type a manifest names is the one the generated code declares.
 */

/** Names the generated code declares besides the collections' own types. */
export const RESERVED_TYPE_NAMES: ReadonlySet<string> = new Set([
  'Schema',
  'CollectionName',
  'ItemRef',
  'GeoJSONGeometry',
  'GeoJSONPosition',
]);

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** Whether a name may be written bare as a TypeScript identifier or property name. */
export const isIdentifier = (name: string): boolean => IDENTIFIER.test(name);

/** `blog_posts` → `BlogPosts`; any character outside [A-Za-z0-9] separates words; a leading digit gets `C`. */
export function pascalCase(name: string): string {
  const words = name.split(/[^A-Za-z0-9]+/).filter(Boolean);
  const joined = words.map((w) => w.charAt(0).toUpperCase() + w.slice(1)).join('');
  if (!joined) return 'Collection';
  return /^[0-9]/.test(joined) ? `C${joined}` : joined;
}

/**
 * A unique type name for each collection (its key type is the name plus `Id`), taken in name order. `preferred`
 * gives a collection's name where one is known already (a manifest's `branded` minus `Id`) and is kept when free.
 */
export function typeNames(
  collections: readonly string[],
  preferred?: ReadonlyMap<string, string>,
): Map<string, string> {
  const used = new Set(RESERVED_TYPE_NAMES);
  const out = new Map<string, string>();
  const free = (base: string) => isIdentifier(base) && !used.has(base) && !used.has(`${base}Id`);
  const take = (collection: string, base: string) => {
    used.add(base);
    used.add(`${base}Id`);
    out.set(collection, base);
  };
  const sorted = [...new Set(collections)].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const rest: string[] = [];
  for (const c of sorted) {
    const p = preferred?.get(c);
    if (p !== undefined && free(p)) take(c, p);
    else rest.push(c);
  }
  for (const c of rest) {
    const base = pascalCase(c);
    let n = 1;
    while (!free(n === 1 ? base : `${base}${n}`)) n++;
    take(c, n === 1 ? base : `${base}${n}`);
  }
  return out;
}

/** The key type's name of a collection whose type is `base`. */
export const keyTypeName = (base: string): string => `${base}Id`;
