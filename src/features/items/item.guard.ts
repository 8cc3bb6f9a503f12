import type { AppDeps } from '../../deps.ts';
import { siteOf, type Principal } from '../../kernel/http/access.ts';
import { newItems, type NewItem } from './item.commands.ts';
import { CollectionNotFound, DependentRecordsExist, SingletonCreate } from './item.errors.ts';
import { readAsSite } from '../../kernel/tenancy/site.ts';
import { findDependents, type Dependent } from '../../../projections/item-documents/index.ts';
import type { AppendCheck } from '../../kernel/es/event-store.ts';
import { isSystemCollection } from '../../contracts/schema/system-collections.types.ts';
import type { ItemValues } from '../../contracts/items/item.events.ts';
import { itemPermissions } from './item.permissions.ts';
import { collectionSchema, readItem, type CollectionSchema } from './item.reads.ts';
import { withDefaults } from './item.values.ts';

/**
 * What the item routes check before a command or a read, for a request's caller: the permission checks of
 * item.permissions.ts, and the steps of each write in the order the API answers them.
 */
export function itemGuard(deps: Pick<AppDeps, 'db' | 'authorizer' | 'schemas'>) {
  const permissions = itemPermissions(deps);
  const { authorizeWrite, checkValidation } = permissions;

  /**
   * The collection's schema; the caller's rights, which every route asks next, are looked up meanwhile. A system
   * collection (files) is its slice's to serve: the item routes answer 404 for it unless `system` is set.
   */
  const collection = (caller: Principal, name: string, opts: { system?: boolean } = {}): Promise<CollectionSchema> => {
    if (!opts.system && isSystemCollection(name)) return Promise.reject(new CollectionNotFound({ collection: name }));
    if (caller.actor) permissions.rights(caller).catch(() => undefined);
    return collectionSchema(deps, siteOf(caller), name);
  };

  /** Soft-deleted items, restoring and purging are for site admins (403 otherwise). */
  const mayAdminister = (caller: Principal) => deps.authorizer.requireSiteAdmin(caller);

  /**
   * A create: a singleton is refused (400), then the create rule is required (403); each new item's id is checked,
   * its written fields must be writable and it must meet the rule's validation. The rule's presets fill what a body
   * leaves out.
   */
  const authorizeCreate = async (
    caller: Principal,
    s: CollectionSchema,
    bodies: ItemValues[],
    bulk: boolean,
  ): Promise<NewItem[]> => {
    if (s.collection.singleton) throw new SingletonCreate({ collection: s.collection.name });
    const scope = await authorizeWrite(caller, s, 'create', null);
    const { id: _presetId, ...presets } = scope.presets;
    const items = newItems(s.collection, bodies, presets);
    for (const p of items) {
      await authorizeWrite(caller, s, 'create', null, p.given, bulk ? [String(p.index)] : []);
      await checkValidation(caller, s, p.id, withDefaults(s.fields, p.values), scope);
    }
    return items;
  };

  /**
   * PATCH and PUT: the update rule, the written fields and the row's conditions; then, only when the rule validates,
   * the item as the write leaves it (`after` the current values).
   */
  const authorizeUpdate = async (
    caller: Principal,
    s: CollectionSchema,
    id: string,
    values: ItemValues,
    after: (current: ItemValues) => ItemValues,
  ): Promise<void> => {
    const scope = await authorizeWrite(caller, s, 'update', id, values);
    if (!scope.validation.length) return;
    const current = (await readItem(deps, siteOf(caller), s.collection.name, id))?.record ?? {};
    await checkValidation(caller, s, id, after(current), scope);
  };

  /**
   * Restrict relations block a delete; set null and cascade wait for resolve-dependents (spec "Items"). An item that
   * is not there answers 404 (from the command) even when references to its id remain. Returns the check the
   * delete's append runs: the item's row is marked deleted (and so locked) before it looks again, so an item made to
   * point here meanwhile either committed first and is found, or waits for the deletion and is refused
   * (checkReferences' check).
   */
  const refuseIfHeldUp = async (caller: Principal, s: CollectionSchema, id: string): Promise<AppendCheck> => {
    const site = siteOf(caller);
    const name = s.collection.name;
    const heldUp = async (dependents: Dependent[]) => {
      if (dependents.some((d) => d.onDelete === 'restrict'))
        throw new DependentRecordsExist(await permissions.readableSamples(caller, s.schema, dependents));
    };
    const dependents = await readAsSite(deps.db, site, (trx) => findDependents(trx, site, s.schema, name, id));
    if (await readItem(deps, site, name, id)) await heldUp(dependents);
    return async (trx) => heldUp(await findDependents(trx, site, s.schema, name, id));
  };

  return { ...permissions, collection, mayAdminister, authorizeCreate, authorizeUpdate, refuseIfHeldUp };
}
