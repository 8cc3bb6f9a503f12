import type { DomainEvent } from '../../kernel/es/event.ts';

/** The spec's notification kinds (Events): who raises each is named where it is raised. */
export const NOTIFICATION_KINDS = ['approval', 'veto', 'incident', 'run', 'goal'] as const;
export type NotificationKind = (typeof NOTIFICATION_KINDS)[number];
export const SEVERITIES = ['info', 'warning', 'critical'] as const;
export type Severity = (typeof SEVERITIES)[number];

/** Who a notification is for: one user, the holders of a role (and of the roles under it), or the site's admins. */
export type Recipient = { type: 'user'; id: string } | { type: 'role'; id: string } | { type: 'admins' };

/** The spec's notification payload, without its id and time (the event holds them). */
export interface NotificationContent {
  kind: NotificationKind;
  severity: Severity;
  title: string;
  body: string;
  /** A path of the admin app (`/flows/…/runs/…`), or null. */
  deepLink: string | null;
  /** The record the notification is about, or null. */
  entityId: string | null;
}

/** A notification was raised for its recipient: the fact every transport (inbox, realtime, Web Push) delivers. */
export type NotificationRaised = DomainEvent<
  'NotificationRaised',
  NotificationContent & { notificationId: string; recipient: Recipient; at: string }
>;
/** A user marked notifications of their inbox handled, or unhandled again (`handled: false`). */
export type NotificationsHandled = DomainEvent<
  'NotificationsHandled',
  { userId: string; notificationIds: string[]; handled: boolean; at: string }
>;

export type NotificationEvent = NotificationRaised | NotificationsHandled;
export const NOTIFICATION_EVENT_TYPES = ['NotificationRaised', 'NotificationsHandled'] as const;

/** One stream per notification: raising the same id twice (a producer's redelivery) raises it once. */
export const notificationStream = (siteId: string, notificationId: string) =>
  `${siteId}/notification/${notificationId}`;
/** One inbox stream per user and site: what they handled. */
export const inboxStream = (siteId: string, userId: string) => `${siteId}/inbox/${userId}`;

/** The spec's notification payload: what the inbox, realtime frames and Web Push all carry. */
export interface NotificationPayload extends NotificationContent {
  id: string;
  ts: string;
}

/** The payload of a raised notification. */
export const payloadOf = (d: NotificationRaised['data']): NotificationPayload => ({
  id: d.notificationId,
  kind: d.kind,
  severity: d.severity,
  title: d.title,
  body: d.body,
  deepLink: d.deepLink,
  entityId: d.entityId,
  ts: d.at,
});
