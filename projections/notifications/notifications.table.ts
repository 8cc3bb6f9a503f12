import type { Int8, Timestamp } from '../../src/kernel/db/database.ts';
import type { NotificationKind, Severity } from '../../src/contracts/notifications/notifications.events.ts';

/** One row per notification raised on a site (DDL in notifications.projector.ts). */
export interface NotificationsTable {
  site_id: string;
  notification_id: string;
  kind: NotificationKind;
  severity: Severity;
  title: string;
  body: string;
  deep_link: string | null;
  entity_id: string | null;
  recipient_type: 'user' | 'role' | 'admins';
  /** The user or role; null for the site's admins. */
  recipient_id: string | null;
  ts: Timestamp;
  /** The raising event's place in the log: the inbox's order and a realtime client's resumption point. */
  seq: Int8;
}

/** One row per notification a user has handled (a notification unhandled again loses its row). */
export interface NotificationReceiptsTable {
  site_id: string;
  user_id: string;
  notification_id: string;
  handled_at: Timestamp;
}

declare module '../../src/kernel/db/database.ts' {
  interface DB {
    notifications: NotificationsTable;
    notification_receipts: NotificationReceiptsTable;
  }
}
