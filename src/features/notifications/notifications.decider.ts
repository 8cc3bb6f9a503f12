import type { Decider } from '../../kernel/es/decider.ts';
import type {
  NotificationContent,
  NotificationRaised,
  NotificationsHandled,
  Recipient,
} from '../../contracts/notifications/notifications.events.ts';

export type RaiseNotification = {
  type: 'RaiseNotification';
  data: NotificationContent & { notificationId: string; recipient: Recipient; now: string };
};

/** A notification stream: raised once; a second raise of the same id is the same fact and records nothing. */
export const notificationDecider: Decider<{ raised: boolean }, RaiseNotification, NotificationRaised> = {
  initialState: () => ({ raised: false }),
  evolve: () => ({ raised: true }),
  decide: (c, s) => {
    if (s.raised) return [];
    const { now, ...rest } = c.data;
    return [{ type: 'NotificationRaised', data: { ...rest, at: now } }];
  },
};

export type HandleNotifications = {
  type: 'HandleNotifications';
  data: { userId: string; notificationIds: string[]; handled: boolean; now: string };
};

/** An inbox stream: records each marking as it comes (the read model keeps the latest per notification). */
export const inboxDecider: Decider<null, HandleNotifications, NotificationsHandled> = {
  initialState: () => null,
  evolve: (s) => s,
  decide: (c) => {
    const { now, notificationIds, ...rest } = c.data;
    if (!notificationIds.length) return [];
    return [
      { type: 'NotificationsHandled', data: { ...rest, notificationIds: [...new Set(notificationIds)], at: now } },
    ];
  },
};
