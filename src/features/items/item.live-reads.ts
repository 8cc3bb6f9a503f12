import type { AppDeps } from '../../deps.ts';
import { siteOf, type Principal } from '../../kernel/http/access.ts';
import { readAsSite } from '../../kernel/tenancy/site.ts';
import { listItems } from '../../../projections/item-documents/index.ts';
import { itemGuard } from './item.guard.ts';
import { present } from './item.present.ts';
import { parseItemQuery } from './item-query.language.ts';

/** What a live subscription asks of a collection: a filter and fields of the list language (checked as the list route checks them). */
export interface LiveQuery {
  filter: Record<string, unknown> | null;
  fields: readonly string[] | null;
}

/** 403/400/404 now, as the list route would answer them, so a subscription that can never be served is refused. */
export async function checkLiveQuery(
  deps: Pick<AppDeps, 'db' | 'authorizer' | 'schemas' | 'config'>,
  caller: Principal,
  collection: string,
  q: LiveQuery,
): Promise<void> {
  await readLive(deps, caller, collection, q, { ids: [], withDeleted: false });
}

/**
 * The items among `ids` that the caller may read now and that match the subscription's filter, with the fields
 * the caller may read among those asked, exactly as the list route would answer them (`withDeleted`: soft-deleted
 * rows too, to decide who saw an item that is now deleted). The records by id.
 */
export async function readLive(
  deps: Pick<AppDeps, 'db' | 'authorizer' | 'schemas' | 'config'>,
  caller: Principal,
  collection: string,
  q: LiveQuery,
  at: { ids: readonly string[]; withDeleted: boolean },
): Promise<Map<string, Record<string, unknown>>> {
  const guard = itemGuard(deps);
  const s = await guard.collection(caller, collection);
  const readGuard = await guard.guardFor(caller, collection);
  const siteId = siteOf(caller);
  // The id is always read: it names the item in the frame.
  const fields = q.fields && !q.fields.includes('id') && !q.fields.includes('*') ? ['id', ...q.fields] : q.fields;
  const page = async (ids: readonly string[]) => {
    const filter = { _and: [...(q.filter ? [q.filter] : []), { id: { _in: [...ids] } }] };
    const base = parseItemQuery({
      meta: 'none',
      limit: String(Math.max(1, ids.length)),
      filter: JSON.stringify(filter),
      ...(fields ? { fields: fields.join(',') } : {}),
    });
    const query = { ...base, locale: null, guard: readGuard, withDeleted: at.withDeleted };
    const res = await readAsSite(deps.db, siteId, (trx) => listItems(trx, siteId, collection, query, s.schema));
    return (await present(deps, caller, s, res.data as Record<string, unknown>[])) as Record<string, unknown>[];
  };
  const out = new Map<string, Record<string, unknown>>();
  // No ids: only the checks (the filter and fields compile against the schema and the caller's rights).
  if (at.ids.length === 0) await page([]);
  for (let i = 0; i < at.ids.length; i += PAGE)
    for (const r of await page(at.ids.slice(i, i + PAGE))) out.set(String(r.id), r);
  return out;
}

const PAGE = 200;
