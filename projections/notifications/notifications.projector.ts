import { sql } from 'kysely';
import { defineProjector } from '../../src/kernel/es/projector.ts';
import {
  NOTIFICATION_EVENT_TYPES,
  type NotificationEvent,
} from '../../src/contracts/notifications/notifications.events.ts';

/**
 * The inbox read model: each notification raised on a site, and per user the ones they handled. Written in the
 * append's transaction, so an inbox read after a raise or a marking shows it.
 */
export const notificationsProjector = defineProjector<NotificationEvent>({
  name: 'notifications',
  version: 1,
  mode: 'inline',
  tables: ['notifications', 'notification_receipts'],
  handles: NOTIFICATION_EVENT_TYPES,
  createTables: async (db, t) => {
    const n = t('notifications');
    await sql`
      create table ${sql.table(n)} (
        site_id text not null,
        notification_id text not null,
        kind text not null,
        severity text not null,
        title text not null,
        body text not null,
        deep_link text,
        entity_id text,
        recipient_type text not null,
        recipient_id text,
        ts timestamptz not null,
        seq bigint not null,
        primary key (site_id, notification_id)
      )`.execute(db);
    await sql`create index ${sql.raw(`${n}_seq`)} on ${sql.table(n)} (site_id, seq)`.execute(db);
    const r = t('notification_receipts');
    await sql`
      create table ${sql.table(r)} (
        site_id text not null,
        user_id text not null,
        notification_id text not null,
        handled_at timestamptz not null,
        primary key (site_id, user_id, notification_id)
      )`.execute(db);
  },
  apply: async (trx, e) => {
    switch (e.type) {
      case 'NotificationRaised': {
        const d = e.data;
        await trx
          .insertInto('notifications')
          .values({
            site_id: e.siteId,
            notification_id: d.notificationId,
            kind: d.kind,
            severity: d.severity,
            title: d.title,
            body: d.body,
            deep_link: d.deepLink,
            entity_id: d.entityId,
            recipient_type: d.recipient.type,
            recipient_id: d.recipient.type === 'admins' ? null : d.recipient.id,
            ts: d.at,
            seq: e.globalPosition,
          })
          .onConflict((oc) => oc.columns(['site_id', 'notification_id']).doNothing())
          .execute();
        return;
      }
      case 'NotificationsHandled': {
        const d = e.data;
        if (!d.notificationIds.length) return;
        if (!d.handled) {
          await trx
            .deleteFrom('notification_receipts')
            .where('site_id', '=', e.siteId)
            .where('user_id', '=', d.userId)
            .where('notification_id', 'in', d.notificationIds)
            .execute();
          return;
        }
        await trx
          .insertInto('notification_receipts')
          .values(
            d.notificationIds.map((id) => ({
              site_id: e.siteId,
              user_id: d.userId,
              notification_id: id,
              handled_at: d.at,
            })),
          )
          .onConflict((oc) => oc.columns(['site_id', 'user_id', 'notification_id']).doNothing())
          .execute();
        return;
      }
    }
  },
});
