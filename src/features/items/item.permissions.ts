import type { AppDeps } from '../../deps.ts';
import { actorOf, siteOf, type Principal } from '../../kernel/http/access.ts';
import { ItemNotFound, PermissionValidationFailed, RowForbidden } from './item.errors.ts';
import { readAsSite } from '../../kernel/tenancy/site.ts';
import {
  candidateInside,
  itemInside,
  rowsInside,
  compileFilter,
  type Dependent,
  type Filter,
  type Guard,
  type RowCondition,
} from '../../../projections/item-documents/index.ts';
import { type SiteSchema } from '../../../projections/schema/index.ts';
import { checkWritable, type AccessScope as Scope, type Action, type Rights } from '../../kernel/auth/authorizer.ts';
import type { MayDecrypt } from './encrypted-fields.ts';
import type { CollectionSchema } from './item.reads.ts';

/**
 * Permission checks of the item routes. Reads: a guard that the query compiler turns into SQL (rows and
 * fields, on every relation followed). Writes: the action must be granted, the written fields writable, the
 * existing row inside the rule's conditions (403 otherwise), and the resulting item inside its validation.
 */
export function itemPermissions(deps: Pick<AppDeps, 'db' | 'authorizer'>) {
  const { authorizer } = deps;
  const rights = (req: Principal) => authorizer.rights(req);

  /** The read guard, after checking that the collection may be read at all (else 403). */
  const guardFor = async (req: Principal, collection: string) => {
    await authorizer.require(req, collection, 'read');
    return readGuard(await rights(req));
  };

  const scopeFor = async (req: Principal, collection: string, action: Action): Promise<Scope> =>
    authorizer.require(req, collection, action);

  /** Whether a candidate item (values not yet written) satisfies a filter, evaluated by the same SQL compiler. */
  const matches = async (req: Principal, s: CollectionSchema, id: string, data: object, filter: Filter) => {
    const siteId = siteOf(req);
    const candidate = { id, data, by: actorOf(req).id };
    return readAsSite(deps.db, siteId, (trx) =>
      candidateInside(trx, siteId, s.schema, s.collection.name, candidate, filter),
    );
  };

  /** 403 when the existing item lies outside the scope's conditions (a missing item is the command's 404). */
  const checkRow = async (req: Principal, s: CollectionSchema, id: string, scope: Scope, action: Action) => {
    if (!scope.filter) return;
    const siteId = siteOf(req);
    const inside = await readAsSite(deps.db, siteId, (trx) =>
      itemInside(trx, siteId, s.schema, s.collection.name, id, scope.filter, { live: false }),
    );
    if (inside === false) throw new RowForbidden({ action, collection: s.collection.name });
  };

  /** 400 when the resulting item fails a rule's validation. */
  const checkValidation = async (req: Principal, s: CollectionSchema, id: string, item: object, scope: Scope) => {
    for (const v of scope.validation) {
      if (!(await matches(req, s, id, item, v))) throw new PermissionValidationFailed(v);
    }
  };

  /** Everything a write checks before its command: action, fields, the row's conditions. */
  const authorizeWrite = async (
    req: Principal,
    s: CollectionSchema,
    action: Action,
    id: string | null,
    values: Record<string, unknown> = {},
    path: string[] = [],
  ): Promise<Scope> => {
    const scope = await scopeFor(req, s.collection.name, action);
    checkWritable(scope, values, path);
    if (id !== null && action !== 'create') await checkRow(req, s, id, scope, action);
    return scope;
  };

  const inside = insideOf(deps);

  /**
   * 404 RECORD_NOT_FOUND when the item lies outside what the caller may read (history, versions). A purged item is
   * judged on its last revision, so its history stays behind the conditions that hid it.
   */
  const checkVisible = async (req: Principal, s: CollectionSchema, id: string) => {
    const guard = await guardFor(req, s.collection.name);
    if (!guard) return;
    const found = await inside(req, s.schema, s.collection.name, [id], [{ guard }]);
    if (found.get(id) === false) throw new ItemNotFound({ id });
  };

  /** The ids among `ids` that the caller may read (all of them for those who read everything). */
  const readableIds = async (req: Principal, schema: SiteSchema, collection: string, ids: string[]) => {
    const guard = readGuard(await rights(req));
    if (!guard) return new Set(ids);
    const found = await inside(req, schema, collection, ids, [{ guard }]);
    return new Set(ids.filter((id) => found.get(id) === true));
  };

  /** Dependents as the caller may see them: the counts stay (they decide a delete), samples only of readable rows. */
  const readableSamples = async (req: Principal, schema: SiteSchema, dependents: Dependent[]) =>
    Promise.all(
      dependents.map(async (d) => {
        const readable = await readableIds(req, schema, d.collection, d.sample);
        return { ...d, sample: d.sample.filter((id) => readable.has(id)) };
      }),
    );

  const idsOutside = idsOutsideOf(deps);
  const decryptable = decryptableOf(deps);

  return {
    guardFor,
    scopeFor,
    authorizeWrite,
    checkValidation,
    checkVisible,
    readableIds,
    readableSamples,
    idsOutside,
    decryptable,
    rights,
  };
}

/** id → inside the conditions, for items of the read model or, once purged, of the history (see item-rows.queries.ts). */
const insideOf =
  (deps: Pick<AppDeps, 'db'>) =>
  (req: Principal, schema: SiteSchema, collection: string, ids: string[], c: RowCondition[]) =>
    readAsSite(deps.db, siteOf(req), (trx) => rowsInside(trx, siteOf(req), schema, collection, ids, c));

/** The ids among `ids` whose rows lie outside a scope's conditions (none when it has none). */
function idsOutsideOf(deps: Pick<AppDeps, 'db'>) {
  const inside = insideOf(deps);
  return async (req: Principal, schema: SiteSchema, collection: string, ids: string[], scope: Scope) => {
    if (!scope.filter || !ids.length) return [];
    const found = await inside(req, schema, collection, ids, [{ filter: scope.filter }]);
    return ids.filter((id) => found.get(id) !== true);
  };
}

/**
 * Who sees an encrypted value in clear: site admins, and whoever may both read and update that field of that row
 * (both rules' fields and conditions); everyone else reads '***'. `wanted` names the rows per collection.
 */
function decryptableOf(deps: Pick<AppDeps, 'db' | 'authorizer'>) {
  const inside = insideOf(deps);
  return async (req: Principal, schema: SiteSchema, wanted: Map<string, Set<string>>): Promise<MayDecrypt> => {
    const p = await deps.authorizer.rights(req);
    if (p.full) return () => true;
    const allowed = new Map<string, { fields: (f: string) => boolean; rows: Map<string, boolean> | null }>();
    for (const [collection, ids] of wanted) {
      const scopes = [p.scope(collection, 'read'), p.scope(collection, 'update')];
      if (!scopes[0] || !scopes[1]) continue;
      const conditions = scopes.flatMap((x) => (x!.filter ? [{ filter: x!.filter }] : []));
      const rows = conditions.length ? await inside(req, schema, collection, [...ids], conditions) : null;
      allowed.set(collection, { fields: (f) => scopes.every((x) => !x!.fields || x!.fields.has(f)), rows });
    }
    return (collection, id, field) => {
      const a = allowed.get(collection);
      return !!a && a.fields(field) && (a.rows === null || a.rows.get(id) === true);
    };
  };
}

/** The read guard for item queries, from the caller's rights: undefined when the caller may read everything. */
export function readGuard(rights: Rights): Guard | undefined {
  if (rights.full) return undefined;
  return {
    rows: (collection, at) => {
      const s = rights.scope(collection, 'read');
      if (!s) return compileFilter({ id: { _null: true } }, { ...at, guard: undefined });
      return s.filter ? compileFilter(s.filter, { ...at, collection, guard: undefined }) : null;
    },
    visible: (collection, field) => {
      const s = rights.scope(collection, 'read');
      return s !== null && (s.fields === null || s.fields.has(field));
    },
  };
}
