/**
 * The studio's navigation from `GET /api/v1/permissions/me`: an entry appears only when the caller may do what it
 * leads to (the API checks every call anyway; this only keeps the caller from being shown doors that are locked).
 */

export const ACTIONS = ['create', 'read', 'update', 'delete', 'share'] as const;
export type Action = (typeof ACTIONS)[number];

/** What the caller may do on a collection: false, or the fields and conditions of the rule that allows it. */
export type Grant = false | { fields: string[]; conditions?: unknown };

export interface PermissionMatrix {
  role: string | null;
  roleChain: string[];
  admin: boolean;
  policies: string[];
  collections: Record<string, unknown>;
}

/** Resources that are not content collections (their own screens, never in the collections list). */
export const RESOURCES = { media: 'media', pages: '_pages', tm: '_tm' } as const;
const RESOURCE_NAMES = new Set<string>(Object.values(RESOURCES));

export interface NavEntry {
  key: string;
  /** Catalogue key of the label (`studio/src/i18n/en.ts`), or a collection's own name. */
  label: string;
  to: 'collections' | 'collection';
  collection?: string;
}

/** The grant of one action on one collection; anything malformed is no grant. */
export function grantOf(matrix: PermissionMatrix, collection: string, action: Action): Grant {
  if (!Object.hasOwn(matrix.collections, collection)) return false;
  const entry = matrix.collections[collection];
  if (typeof entry !== 'object' || entry === null || !Object.hasOwn(entry, action)) return false;
  const grant = (entry as Record<string, unknown>)[action];
  if (typeof grant !== 'object' || grant === null) return false;
  const fields = (grant as { fields?: unknown }).fields;
  if (!Array.isArray(fields) || fields.length === 0) return false;
  return {
    fields: fields.filter((f): f is string => typeof f === 'string'),
    conditions: (grant as { conditions?: unknown }).conditions,
  };
}

export const can = (matrix: PermissionMatrix, collection: string, action: Action): boolean =>
  grantOf(matrix, collection, action) !== false;

/** The content collections the caller may read, in name order (resources such as media and pages left out). */
export function readableCollections(matrix: PermissionMatrix): string[] {
  return Object.keys(matrix.collections)
    .filter((c) => !RESOURCE_NAMES.has(c) && can(matrix, c, 'read'))
    .sort();
}

/** The navigation: the collections overview and each readable collection; nothing when the caller can read none. */
export function navigation(matrix: PermissionMatrix): NavEntry[] {
  const collections = readableCollections(matrix);
  if (collections.length === 0) return [];
  return [
    { key: 'collections', label: 'nav.collections', to: 'collections' },
    ...collections.map((c): NavEntry => ({ key: `collection:${c}`, label: c, to: 'collection', collection: c })),
  ];
}

/** The site's work areas beside the collections: releases and pages, each shown when the caller may use it. */
export interface AreaEntry {
  key: 'releases' | 'pages';
  label: 'nav.releases' | 'nav.pages';
}

/**
 * Releases are for callers who may update items of some collection (the API refuses the others); pages for callers
 * with any rule on the pages resource.
 */
export function areas(matrix: PermissionMatrix): AreaEntry[] {
  const out: AreaEntry[] = [];
  const updatable = Object.keys(matrix.collections).some((c) => !RESOURCE_NAMES.has(c) && can(matrix, c, 'update'));
  if (updatable) out.push({ key: 'releases', label: 'nav.releases' });
  if ((['read', 'create', 'update'] as const).some((a) => can(matrix, RESOURCES.pages, a)))
    out.push({ key: 'pages', label: 'nav.pages' });
  return out;
}
