import type { AppDeps } from '../../deps.ts';
import type { Principal } from '../../kernel/http/access.ts';
import type { ErrorObject } from '../../kernel/http/errors.ts';
import { readAsSite } from '../../kernel/tenancy/site.ts';
import type { AppendCheck } from '../../kernel/es/event-store.ts';
import { holdLiveTargets, liveTargets } from '../../../projections/item-documents/index.ts';
import { relationOn, type SiteSchema } from '../../../projections/schema/index.ts';
import { InvalidReferences } from './item.errors.ts';
import { readGuard } from './item.permissions.ts';

/** One item a write's relation value names, and where in the body it stands. */
export interface Reference {
  collection: string;
  id: string;
  path: string[];
}

/** The values one write sets on one item, and where they stand in the body (a bulk item's index). */
export interface ReferenceWrite {
  collection: string;
  values: Record<string, unknown>;
  path: string[];
}

const idOf = (v: unknown): string | null =>
  typeof v === 'string' || (typeof v === 'number' && Number.isFinite(v)) ? String(v) : null;

/**
 * The items the relation values of one write name: an m2o's value, each id of an o2m or m2m list, each
 * `{ collection, item }` of an m2a list (an entry of another shape names nothing that exists). Null names nothing.
 */
export function referencesOf(schema: SiteSchema, w: ReferenceWrite): Reference[] {
  const out: Reference[] = [];
  for (const [field, v] of Object.entries(w.values)) {
    const r = v === null || v === undefined ? undefined : relationOn(schema, w.collection, field);
    if (!r) continue;
    const at = [...w.path, field];
    if (r.kind === 'm2o') {
      const id = idOf(v);
      if (id !== null) out.push({ collection: r.target!, id, path: at });
      continue;
    }
    if (!Array.isArray(v)) continue;
    v.forEach((e: unknown, i) => {
      const path = [...at, String(i)];
      if (r.kind !== 'm2a') {
        const id = idOf(e);
        if (id !== null) out.push({ collection: r.target!, id, path });
        return;
      }
      const entry = (e !== null && typeof e === 'object' ? e : {}) as { collection?: unknown; item?: unknown };
      const collection = typeof entry.collection === 'string' ? entry.collection : '';
      out.push({ collection, id: idOf(entry.item) ?? '', path });
    });
  }
  return out;
}

/**
 * 422 VALIDATION_FAILED (reason `invalid_relation`, each problem at its field's path) unless every item the writes'
 * relation values name is live on the site and one the writer may read (`writer` null: a process of the service,
 * existence alone). One query for all the ids of the writes, whatever their number; nothing when no relation value
 * is written. A reference to nothing used to be stored and read back as null. `fresh`: the items the same write
 * creates, which its values may name (a bulk create of a thread whose replies name their parent, an item itself).
 *
 * Returns the check the write's append runs (undefined when it names nothing): the same items, live, and locked
 * until the commit, so an item deleted between this read and the append refuses the write the same way instead of
 * leaving a reference to nothing (see holdLiveTargets).
 */
export async function checkReferences(
  deps: Pick<AppDeps, 'db' | 'authorizer'>,
  siteId: string,
  writer: Principal | null,
  schema: SiteSchema,
  writes: ReferenceWrite[],
  fresh?: { collection: string; ids: ReadonlySet<string> },
): Promise<AppendCheck | undefined> {
  const refs = writes
    .flatMap((w) => referencesOf(schema, w))
    .filter((r) => !fresh || r.collection !== fresh.collection || !fresh.ids.has(r.id));
  if (!refs.length) return undefined;
  const wanted = new Map<string, string[]>();
  for (const r of refs) {
    const ids = wanted.get(r.collection) ?? [];
    ids.push(r.id);
    wanted.set(r.collection, ids);
  }
  const guard = writer ? readGuard(await deps.authorizer.rights(writer)) : undefined;
  const found = await readAsSite(deps.db, siteId, (trx) => liveTargets(trx, siteId, schema, wanted, guard));
  const refuse = (live: Map<string, Set<string>>) => {
    const problems: ErrorObject[] = refs
      .filter((r) => !live.get(r.collection)?.has(r.id))
      .map((r) => ({
        code: 'VALIDATION_FAILED',
        message: `${r.path.join('.')} names no item ${r.id} of ${r.collection || 'a collection'} that you may read`,
        path: r.path,
        extensions: { reason: 'invalid_relation', collection: r.collection, id: r.id },
      }));
    if (problems.length) throw new InvalidReferences(problems);
  };
  refuse(found);
  return async (trx) => refuse(await holdLiveTargets(trx, siteId, wanted));
}
