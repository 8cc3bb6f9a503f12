import { sql, type Selectable } from 'kysely';
import type { Db, DB } from '../../src/kernel/db/database.ts';
import type { NotificationKind, Recipient, Severity } from '../../src/contracts/notifications/notifications.events.ts';

/** Whose notifications a caller sees: their own, their role chain's, and the admins' when they are a site admin. */
export interface InboxViewer {
  userId: string;
  roles: readonly string[];
  admin: boolean;
}

/** A notification as the inbox shows it: the spec's payload, its recipient, and whether the caller handled it. */
export interface NotificationRecord {
  id: string;
  kind: NotificationKind;
  severity: Severity;
  title: string;
  body: string;
  deepLink: string | null;
  entityId: string | null;
  ts: string;
  recipient: Recipient;
  handled: boolean;
  handledAt: string | null;
  /** The place in the log it was raised at (a realtime client resumes after it). */
  seq: string;
}

/** The caller's notifications: their own, their role chain's, and the admins' when they are a site admin. */
const base = (db: Db, siteId: string, v: InboxViewer) =>
  db
    .selectFrom('notifications as n')
    .leftJoin('notification_receipts as r', (j) =>
      j
        .onRef('r.site_id', '=', 'n.site_id')
        .onRef('r.notification_id', '=', 'n.notification_id')
        .on('r.user_id', '=', v.userId),
    )
    .where('n.site_id', '=', siteId)
    .where((eb) =>
      eb.or([
        eb.and([eb('n.recipient_type', '=', 'user'), eb('n.recipient_id', '=', v.userId)]),
        ...(v.roles.length
          ? [eb.and([eb('n.recipient_type', '=', 'role'), eb('n.recipient_id', 'in', [...v.roles])])]
          : []),
        ...(v.admin ? [eb('n.recipient_type', '=', 'admins')] : []),
      ]),
    );

const iso = (d: Date | string) => new Date(d).toISOString();

/** A notification beside its receipt's time (null while unhandled: the receipt is left-joined). */
type Row = Pick<
  Selectable<DB['notifications']>,
  | 'notification_id'
  | 'kind'
  | 'severity'
  | 'title'
  | 'body'
  | 'deep_link'
  | 'entity_id'
  | 'recipient_type'
  | 'recipient_id'
  | 'ts'
  | 'seq'
> & { handled_at: Selectable<DB['notification_receipts']>['handled_at'] | null };

const COLUMNS = [
  'n.notification_id',
  'n.kind',
  'n.severity',
  'n.title',
  'n.body',
  'n.deep_link',
  'n.entity_id',
  'n.recipient_type',
  'n.recipient_id',
  'n.ts',
  'n.seq',
  'r.handled_at',
] as const;

const toRecord = (r: Row): NotificationRecord => ({
  id: r.notification_id,
  kind: r.kind,
  severity: r.severity,
  title: r.title,
  body: r.body,
  deepLink: r.deep_link,
  entityId: r.entity_id,
  ts: iso(r.ts),
  recipient: r.recipient_type === 'admins' ? { type: 'admins' } : { type: r.recipient_type, id: r.recipient_id ?? '' },
  handled: r.handled_at !== null,
  handledAt: r.handled_at === null ? null : iso(r.handled_at),
  seq: String(r.seq),
});

/** A page of the caller's inbox, newest first, and how many match. */
export async function listInbox(
  db: Db,
  siteId: string,
  v: InboxViewer,
  q: { unhandled: boolean; limit: number; offset: number },
): Promise<{ rows: NotificationRecord[]; total: number }> {
  let query = base(db, siteId, v);
  if (q.unhandled) query = query.where('r.handled_at', 'is', null);
  const [rows, count] = await Promise.all([
    query.select(COLUMNS).orderBy('n.seq', 'desc').limit(q.limit).offset(q.offset).execute(),
    query.select((eb) => eb.fn.countAll<string>().as('n')).executeTakeFirstOrThrow(),
  ]);
  return { rows: rows.map(toRecord), total: Number(count.n) };
}

/** One notification of the caller's inbox, or null (another's, another site's, or none). */
export async function findInboxEntry(
  db: Db,
  siteId: string,
  v: InboxViewer,
  notificationId: string,
): Promise<NotificationRecord | null> {
  const row = await base(db, siteId, v)
    .select(COLUMNS)
    .where('n.notification_id', '=', notificationId)
    .executeTakeFirst();
  return row ? toRecord(row) : null;
}

/** The ids of the caller's unhandled notifications, oldest first, at most `limit`. */
export async function unhandledIds(db: Db, siteId: string, v: InboxViewer, limit: number): Promise<string[]> {
  const rows = await base(db, siteId, v)
    .select('n.notification_id')
    .where('r.handled_at', 'is', null)
    .orderBy('n.seq')
    .limit(limit)
    .execute();
  return rows.map((r) => r.notification_id);
}

/**
 * Deletes the site's notifications raised before `before` that someone handled before it, with their receipts (a
 * user's notification is handled by its recipient; a role's or the admins' by the first of them to handle it, the
 * one who took care of it). Unhandled ones stay whatever their age. Answers how many went; the log keeps them, so a
 * rebuild brings them back until the next prune.
 */
export async function pruneHandledNotifications(db: Db, siteId: string, before: Date): Promise<number> {
  const r = await sql<{ n: number }>`
    with gone as (
      delete from notifications n
      where n.site_id = ${siteId} and n.ts < ${before} and exists (
        select 1 from notification_receipts r
        where r.site_id = n.site_id and r.notification_id = n.notification_id and r.handled_at < ${before})
      returning n.notification_id),
    receipts as (
      delete from notification_receipts r
      where r.site_id = ${siteId} and r.notification_id in (select notification_id from gone))
    select count(*)::int as n from gone`.execute(db);
  return r.rows[0]!.n;
}
