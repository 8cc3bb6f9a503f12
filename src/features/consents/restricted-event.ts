import type { AppDeps } from '../../deps.ts';
import type { ActorRef } from '../../kernel/es/event.ts';
import { readAsSite } from '../../kernel/tenancy/site.ts';
import { findItem } from '../../../projections/item-documents/index.ts';
import { restrictedPeople } from './consent.commands.ts';

/**
 * Whether an act concerns a person under restriction of processing (GDPR Art. 18): the person who acted, the
 * author of the item it changed, or the user the item's subject field names (its personal fields are about them).
 * Every process that would carry a change further (webhooks, flows) asks this one check, so they agree on whose
 * data they leave alone (docs/decisions.md "Restriction of processing").
 */
export async function concernsRestricted(
  deps: Pick<AppDeps, 'db' | 'schemas'>,
  siteId: string,
  actor: ActorRef,
  item: { collection: string; id: string } | null,
): Promise<boolean> {
  const people = new Set<string>();
  if (actor.type === 'user') people.add(actor.id);
  if (item) {
    const row = await readAsSite(deps.db, siteId, (db) => findItem(db, siteId, item.collection, item.id));
    if (row?.created_by) people.add(row.created_by);
    const subject = (await deps.schemas.read(siteId)).collections.get(item.collection)?.subject;
    if (row && subject?.from === 'field' && subject.field !== 'user_created') {
      const named = Object.hasOwn(row.data, subject.field) ? row.data[subject.field] : null;
      if (typeof named === 'string' && named) people.add(named);
    }
  }
  return people.size > 0 && (await restrictedPeople(deps, siteId, [...people])).size > 0;
}
