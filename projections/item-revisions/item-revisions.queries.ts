import { sql, type Selectable } from 'kysely';
import type { Db, DB } from '../../src/kernel/db/database.ts';
import type { ActorRef } from '../../src/kernel/es/event.ts';
import type { ItemValues } from '../../src/contracts/items/item.events.ts';
import type { RevisionAction } from './item-revisions.projector.ts';

type Row = Pick<
  Selectable<DB['item_revisions']>,
  'collection' | 'item_id' | 'version' | 'revision_id' | 'action' | 'data' | 'delta' | 'actor' | 'at'
>;

/** The revision record of DESIGN §5. */
export interface Revision {
  id: string;
  collection: string;
  itemId: string;
  version: number;
  action: RevisionAction;
  data: ItemValues;
  delta: ItemValues;
  actor: ActorRef;
  committed: boolean;
  timestamp: string;
}

const toRevision = (r: Row): Revision => ({
  id: r.revision_id,
  collection: r.collection,
  itemId: r.item_id,
  version: r.version,
  action: r.action,
  data: r.data,
  delta: r.delta ?? r.data,
  actor: r.actor,
  committed: true,
  timestamp: new Date(r.at).toISOString(),
});

const COLUMNS = sql.raw('collection, item_id, version, revision_id, action, data, delta, actor, at');

/**
 * A page of an item's revisions, newest first, with how many there are: revisions are numbered 1…n per item, so
 * the total is the last number and any page is an index range (one round trip, however deep the page).
 */
export async function listRevisions(
  db: Db,
  site: string,
  collection: string,
  id: string,
  page: { limit: number; offset: number },
): Promise<{ revisions: Revision[]; total: number }> {
  // The left join answers one row of nulls beside the total when the page holds no revision.
  const r = await sql<{ total: number } & (Row | { [K in keyof Row]: null })>`
    with n as (select coalesce(max(ordinal), 0) as total from item_revisions
               where site_id = ${site} and collection = ${collection} and item_id = ${id})
    select n.total, ${COLUMNS} from n left join item_revisions on site_id = ${site} and collection = ${collection}
      and item_id = ${id} and ordinal <= n.total - ${page.offset} and ordinal > n.total - ${page.offset} - ${page.limit}
    order by ordinal desc`.execute(db);
  const total = r.rows[0]?.total ?? 0;
  return {
    revisions: r.rows.filter((x): x is { total: number } & Row => x.revision_id !== null).map(toRevision),
    total,
  };
}

/** One revision of one item; a revision of another item or site is not found. */
export async function findRevision(
  db: Db,
  site: string,
  collection: string,
  id: string,
  revisionId: string,
): Promise<Revision | null> {
  if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(revisionId)) return null;
  const r = await sql<Row>`select ${COLUMNS} from item_revisions
    where site_id = ${site} and revision_id = ${revisionId} and collection = ${collection} and item_id = ${id}`.execute(
    db,
  );
  return r.rows[0] ? toRevision(r.rows[0]) : null;
}

/** The item as it was at a time or at a stream version: its latest revision then, and its first one. */
export async function revisionAt(
  db: Db,
  site: string,
  collection: string,
  id: string,
  at: { asOf?: Date; version?: number },
): Promise<{ revision: Revision; first: Revision } | null> {
  const until = at.asOf ? sql`and at <= ${at.asOf.toISOString()}` : sql`and version <= ${at.version ?? 0}`;
  const r = await sql<Row>`
    (select ${COLUMNS} from item_revisions where site_id = ${site} and collection = ${collection} and item_id = ${id}
     ${until} order by version desc limit 1)
    union all
    (select ${COLUMNS} from item_revisions where site_id = ${site} and collection = ${collection} and item_id = ${id}
     order by version asc limit 1)`.execute(db);
  if (r.rows.length < 2) return null;
  return { revision: toRevision(r.rows[0]!), first: toRevision(r.rows[1]!) };
}

/** Where a page of revisions ended: newest first by time, then by revision id. */
export interface RevisionCursor {
  at: string;
  id: string;
}

/**
 * Revisions made by agents (actor type `agent`) to items the user created: GET /me/automated-decisions (a page by
 * offset) and the personal-data export (keyset pages `after` a cursor). Newest first.
 */
export async function agentRevisionsOfCreator(
  db: Db,
  site: string,
  userId: string,
  page: { limit: number; offset: number } | { limit: number; after: RevisionCursor | null },
): Promise<Revision[]> {
  const after = 'after' in page ? page.after : null;
  const r = await sql<Row>`
    select r.collection, r.item_id, r.version, r.revision_id, r.action, r.data, r.delta, r.actor, r.at
    from item_revisions r
    join item_revisions c on c.site_id = r.site_id and c.collection = r.collection and c.item_id = r.item_id
                         and c.version = 1 and c.actor ->> 'id' = ${userId}
    where r.site_id = ${site} and r.actor ->> 'type' = 'agent'
      ${after ? sql`and (r.at, r.revision_id) < (${after.at}::timestamptz, ${after.id}::uuid)` : sql``}
    order by r.at desc, r.revision_id desc
    limit ${page.limit} ${'offset' in page ? sql`offset ${page.offset}` : sql``}`.execute(db);
  return r.rows.map(toRevision);
}

/** How many agent revisions `agentRevisionsOfCreator` pages through: the `total` of its list's meta. */
export async function countAgentRevisionsOfCreator(db: Db, site: string, userId: string): Promise<number> {
  const r = await sql<{ n: string | number }>`
    select count(*) as n
    from item_revisions r
    join item_revisions c on c.site_id = r.site_id and c.collection = r.collection and c.item_id = r.item_id
                         and c.version = 1 and c.actor ->> 'id' = ${userId}
    where r.site_id = ${site} and r.actor ->> 'type' = 'agent'`.execute(db);
  return Number(r.rows[0]?.n ?? 0);
}

/** A page of the revisions the user made on the site (as actor), in (collection, item, version) order after `after`. */
export async function revisionsByActor(
  db: Db,
  site: string,
  userId: string,
  after: { collection: string; itemId: string; version: number } | null,
  limit: number,
): Promise<Revision[]> {
  const r = await sql<Row>`
    select ${COLUMNS} from item_revisions
    where site_id = ${site} and actor ->> 'id' = ${userId}
      ${after ? sql`and (collection, item_id, version) > (${after.collection}, ${after.itemId}, ${after.version})` : sql``}
    order by collection, item_id, version limit ${limit}`.execute(db);
  return r.rows.map(toRevision);
}
