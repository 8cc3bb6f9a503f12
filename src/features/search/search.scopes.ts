import type { AppDeps } from '../../deps.ts';
import type { Principal } from '../../kernel/http/access.ts';
import type { SiteSchema } from '../../../projections/schema/index.ts';
import { searchableFields } from '../../../projections/search/index.ts';
import { isSystemCollection } from '../../contracts/schema/system-collections.types.ts';
import type { SearchScope } from '../../../projections/search/index.ts';

/**
 * What the caller may search, asked of the authorizer per collection: one collection (its read rule required, as
 * the items API requires it) or, without one, every collection of the site it may read. System collections (files)
 * are their slices' to serve and are not searched. Each scope holds the searchable fields the caller may read and
 * the rows its read rule reaches.
 */
export async function searchScopes(
  deps: Pick<AppDeps, 'authorizer'>,
  caller: Principal,
  schema: SiteSchema,
  collection: string | null,
): Promise<SearchScope[]> {
  if (collection !== null) await deps.authorizer.require(caller, collection, 'read');
  const rights = await deps.authorizer.rights(caller);
  const names =
    collection !== null ? [collection] : [...schema.collections.keys()].filter((c) => !isSystemCollection(c));
  const scopes: SearchScope[] = [];
  for (const name of names) {
    const scope = rights.full ? { filter: null, fields: null } : rights.scope(name, 'read');
    if (!scope) continue;
    const fields = searchableFields(schema, name)
      .map((f) => f.field)
      .filter((f) => scope.fields === null || scope.fields.has(f));
    if (fields.length) scopes.push({ collection: name, fields, rows: scope.filter });
  }
  return scopes;
}
