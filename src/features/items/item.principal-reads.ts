import type { AppDeps } from '../../deps.ts';
import { siteOf, type Principal } from '../../kernel/http/access.ts';
import { readAsSite } from '../../kernel/tenancy/site.ts';
import { listItems } from '../../../projections/item-documents/index.ts';
import { itemGuard } from './item.guard.ts';
import { present } from './item.present.ts';
import { parseItemQuery } from './item-query.language.ts';

/**
 * Items of a collection as a principal may read them (its read rule's rows and fields), by id or by a filter of the
 * list language, for process managers that act for a role (flows' `item.read`), without personal fields. 403 without
 * the read right; a malformed filter is the list route's 400.
 */
export async function readItemsAs(
  deps: Pick<AppDeps, 'db' | 'authorizer' | 'schemas' | 'config'>,
  caller: Principal,
  collection: string,
  q: { id?: string; filter?: Record<string, unknown>; limit: number },
): Promise<Record<string, unknown>[]> {
  const guard = itemGuard(deps);
  const s = await guard.collection(caller, collection);
  const readGuard = await guard.guardFor(caller, collection);
  const base = parseItemQuery({
    meta: 'none',
    limit: String(q.id ? 1 : q.limit),
    ...(q.filter ? { filter: JSON.stringify(q.filter) } : {}),
  });
  const siteId = siteOf(caller);
  const query = { ...base, locale: null, guard: readGuard, ...(q.id ? { id: q.id, single: true } : {}) };
  const res = await readAsSite(deps.db, siteId, (trx) => listItems(trx, siteId, collection, query, s.schema));
  // Never the personal values: what a process reads goes into its own records (a flow's run history), out of the
  // reach of the subject's erasure.
  const personal = s.fields.filter((f) => f.personal).map((f) => f.field);
  const records = (res.data as Record<string, unknown>[]).map((r) =>
    personal.length ? Object.fromEntries(Object.entries(r).filter(([k]) => !personal.includes(k))) : r,
  );
  return present(deps, caller, s, records);
}
