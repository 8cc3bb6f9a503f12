import { sql, type Transaction } from 'kysely';
import { jsonbMerge, type DB } from '../../src/kernel/db/database.ts';
import { later } from '../../src/kernel/db/later.ts';
import { defineProjector, type StoredEventOf, type TableName } from '../../src/kernel/es/projector.ts';
import { ITEM_EVENT_TYPES, type ItemEvent, type ItemValues } from '../../src/contracts/items/item.events.ts';

export const REVISION_ACTIONS = ['create', 'update', 'delete', 'revert', 'restore', 'promote', 'publish'] as const;
export type RevisionAction = (typeof REVISION_ACTIONS)[number];

/** The keys whose values differ between two states (a key that is gone reads as null). */
export function deltaOf(before: ItemValues, after: ItemValues): ItemValues {
  const out: ItemValues = {};
  for (const k of new Set([...Object.keys(before), ...Object.keys(after)])) {
    if (JSON.stringify(before[k] ?? null) !== JSON.stringify(after[k] ?? null)) out[k] = after[k] ?? null;
  }
  return out;
}

/** What an event makes of the item: its values after the change, the change, and the revision's action. */
function revisionOf(
  e: ItemEvent,
  before: ItemValues,
): { data: ItemValues; delta: ItemValues; action: RevisionAction } | null {
  switch (e.type) {
    case 'ItemCreated':
      return { data: e.data.values, delta: e.data.values, action: 'create' };
    case 'ItemUpdated': {
      const data = { ...before, ...e.data.changes };
      return { data, delta: e.data.changes, action: 'update' };
    }
    case 'ItemReplaced':
      return { data: e.data.values, delta: deltaOf(before, e.data.values), action: 'update' };
    case 'ItemDeleted':
    case 'ItemPurged':
      return { data: before, delta: {}, action: 'delete' };
    case 'ItemReverted':
      return { data: e.data.values, delta: deltaOf(before, e.data.values), action: 'revert' };
    case 'ItemRestored':
      return { data: before, delta: {}, action: 'restore' };
    case 'ItemVersionPromoted':
      return { data: e.data.values, delta: deltaOf(before, e.data.values), action: 'promote' };
    case 'ItemRewrapped':
      return null;
    default:
      return null;
  }
}

async function latest(trx: Transaction<DB>, site: string, collection: string, id: string) {
  const row = await trx
    .selectFrom('item_revisions')
    .select(['data', 'version', 'ordinal'])
    .where('site_id', '=', site)
    .where('collection', '=', collection)
    .where('item_id', '=', id)
    .orderBy('version', 'desc')
    .limit(1)
    .executeTakeFirst();
  return row ?? null;
}

/**
 * The revision of an `ItemUpdated`: the latest revision's values with the changes over them (`||` is the shallow
 * merge `{ ...before, ...changes }` that `revisionOf` makes) and the next ordinal, read and written by one statement.
 */
async function insertUpdate(
  trx: Transaction<DB>,
  e: StoredEventOf<Extract<ItemEvent, { type: 'ItemUpdated' }>>,
  t: TableName,
) {
  const table = sql.table(t('item_revisions'));
  const { collection, id, changes } = e.data;
  const json = JSON.stringify(changes);
  const insert = sql`
    insert into ${table} (site_id, collection, item_id, version, ordinal, revision_id, action, data, delta, actor, at)
    select ${e.siteId}, ${collection}, ${id}, ${e.streamVersion}, coalesce(p.ordinal, 0) + 1, ${e.eventId}, 'update',
           coalesce(p.data, '{}'::jsonb) || ${json}::jsonb, ${json}::jsonb, ${JSON.stringify(e.metadata.actor)}::jsonb, ${e.data.at}
    from (select 1) one left join lateral (
      select data, ordinal from ${table}
      where site_id = ${e.siteId} and collection = ${collection} and item_id = ${id}
      order by version desc limit 1) p on true
    on conflict do nothing`;
  // Sent with the transaction's next statement (see `later`): reads the latest revision as of then, in order.
  await later(trx, { compile: () => insert.compile(trx) });
}

/**
 * Every item change as a revision (DESIGN §5): the item's values after it, the changed keys, the actor and the
 * time, read from the item's own stream. Kept as a read model so that a long history pages, and an `asOf` read
 * is one index lookup instead of a fold of thousands of events.
 */
export const itemRevisionsProjector = defineProjector<ItemEvent>({
  name: 'item-revisions',
  // 3: a creation's delta is not stored (it is its data).
  version: 3,
  mode: 'inline',
  tables: ['item_revisions'],
  handles: ITEM_EVENT_TYPES,
  createTables: async (db, t) => {
    const table = t('item_revisions');
    await sql`
      create table ${sql.table(table)} (
        site_id text not null,
        collection text not null,
        item_id text not null,
        version integer not null,
        ordinal integer not null,
        revision_id uuid not null,
        action text not null,
        data jsonb not null,
        delta jsonb,
        actor jsonb not null,
        at timestamptz not null,
        primary key (site_id, collection, item_id, version)
      )`.execute(db);
    // The n-th revision of an item: a page of its history is an index range, however deep.
    await sql`create unique index ${sql.raw(`${table}_by_ordinal`)} on ${sql.table(table)} (site_id, collection, item_id, ordinal)`.execute(
      db,
    );
    await sql`create unique index ${sql.raw(`${table}_by_id`)} on ${sql.table(table)} (site_id, revision_id)`.execute(
      db,
    );
    await sql`create index ${sql.raw(`${table}_by_actor`)} on ${sql.table(table)} (site_id, (actor ->> 'type'), at)`.execute(
      db,
    );
  },
  apply: async (trx, e, t) => {
    const { collection, id } = e.data;
    // An update, the most frequent change, in one statement: the latest revision's values merged with the change.
    if (e.type === 'ItemUpdated' && e.streamVersion > 1) return insertUpdate(trx, e, t);
    // A creation starts the history: nothing earlier to read.
    const prev = e.streamVersion === 1 ? null : await latest(trx, e.siteId, collection, id);
    if (e.type === 'ItemRewrapped') {
      // Same plaintext, new envelopes: not a change anyone made, so no revision; the latest one carries them.
      if (prev)
        await trx
          .updateTable('item_revisions')
          .set((eb) => ({ data: jsonbMerge(eb.ref('data'), e.data.changes) }))
          .where('site_id', '=', e.siteId)
          .where('collection', '=', collection)
          .where('item_id', '=', id)
          .where('version', '=', prev.version)
          .execute();
      return;
    }
    const rev = revisionOf(e, prev?.data ?? {});
    if (!rev) return;
    await later(
      trx,
      trx
        .insertInto('item_revisions')
        .values({
          site_id: e.siteId,
          collection,
          item_id: id,
          version: e.streamVersion,
          ordinal: (prev?.ordinal ?? 0) + 1,
          revision_id: e.eventId,
          action: rev.action,
          data: JSON.stringify(rev.data),
          delta: rev.action === 'create' ? null : JSON.stringify(rev.delta),
          actor: JSON.stringify(e.metadata.actor),
          at: e.data.at,
        })
        .onConflict((oc) => oc.doNothing()),
    );
  },
});
