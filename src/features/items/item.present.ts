import type { AppDeps } from '../../deps.ts';
import type { Principal } from '../../kernel/http/access.ts';
import { siteOf } from '../../kernel/http/access.ts';
import { personalSubject, openPersonal, subjectKeys } from '../../platform/privacy/pii.ts';
import { placeOf, revealRecords } from './encrypted-fields.ts';
import { erasedValueOf } from './personal-fields.ts';
import type { ItemValues } from '../../contracts/items/item.events.ts';
import type { ItemState } from './item.decider.ts';
import { itemPermissions, readGuard } from './item.permissions.ts';
import type { CollectionSchema } from './item.reads.ts';

/**
 * Records as the caller may see them: fields it may not read dropped, each encrypted value decrypted where the
 * caller may (see `decryptable`), '***' everywhere else, each personal value opened with its subject's key. A first
 * pass only notes which rows hold encrypted values and whose keys the personal values need.
 */
export async function present<T>(
  deps: Pick<AppDeps, 'config' | 'db' | 'authorizer'>,
  caller: Principal,
  s: CollectionSchema,
  records: T,
): Promise<T> {
  const { keyring } = deps.config;
  const permissions = itemPermissions(deps);
  const name = s.collection.name;
  const site = siteOf(caller);
  const wanted = new Map<string, Set<string>>();
  const subjects = new Set<string>();
  revealRecords(
    keyring,
    site,
    s.schema,
    name,
    records,
    (collection, id) => {
      wanted.set(collection, (wanted.get(collection) ?? new Set()).add(id));
      return false;
    },
    (_c, _id, _f, sealed) => subjects.add(personalSubject(sealed)!),
  );
  const decrypt = wanted.size ? await permissions.decryptable(caller, s.schema, wanted) : () => false;
  const keys = subjects.size ? await subjectKeys(deps.db, keyring, [...subjects], false) : null;
  // A personal value opens with its subject's key; once the subject is erased it reads as the field's erased value.
  const open = (collection: string, id: string, field: string, sealed: string) => {
    const value = openPersonal(keys?.get(personalSubject(sealed)!), sealed, placeOf(site, collection, id, field));
    return value === undefined ? erasedValueOf(s.schema, collection, field) : value;
  };
  const revealed = revealRecords(keyring, site, s.schema, name, records, decrypt, open);
  const guard = readGuard(await permissions.rights(caller));
  if (!guard) return revealed;
  const hide = (r: Record<string, unknown>) =>
    Object.fromEntries(Object.entries(r).filter(([k]) => !s.schema.fields.get(name)?.has(k) || guard.visible(name, k)));
  return (Array.isArray(revealed) ? revealed.map(hide) : hide(revealed as Record<string, unknown>)) as T;
}

/** The meta of a write's answer: the stream's version after it and the revision it made (null when it changed nothing). */
export const writeMeta = (res: { version: number; events: { eventId: string }[] }) => ({
  version: res.version,
  revisionId: res.events.at(-1)?.eventId ?? null,
});

/**
 * The item as a write left it, from the decider's state after the write (its values and stamp are what the read
 * model holds at that version), so that the answer shows this write, not one that came after it. Null when the
 * state cannot tell (not live).
 */
export function writtenRecord(id: string, state: ItemState): (ItemValues & { id: string }) | null {
  if (state.status !== 'live' || !state.stamp) return null;
  return { ...state.values, id, ...state.stamp };
}

/**
 * A revision of item `id` as the caller may see it: `data` presented as a read of the item is, and `delta` (what the
 * change set) only the fields `data` shows, with their values there: a field the caller may not read is left out
 * of both, a personal or encrypted one masked the same way in both.
 */
export async function presentRevision<R extends { data: ItemValues; delta: ItemValues }>(
  deps: Pick<AppDeps, 'config' | 'db' | 'authorizer'>,
  caller: Principal,
  s: CollectionSchema,
  id: string,
  r: R,
): Promise<R> {
  const data: ItemValues = await present(deps, caller, s, { ...r.data, id });
  // A field the change removed (a PUT without it) is not in data: its null is judged by the same rules.
  const removed = Object.keys(r.delta).filter((k) => k !== 'id' && !Object.hasOwn(r.data, k));
  const judged: ItemValues = removed.length
    ? await present(deps, caller, s, { ...r.data, ...Object.fromEntries(removed.map((k) => [k, null])), id })
    : data;
  const names = Object.keys(r.delta).filter((k) => k !== 'id' && Object.hasOwn(judged, k));
  return { ...r, data, delta: Object.fromEntries(names.map((k) => [k, judged[k]])) };
}
