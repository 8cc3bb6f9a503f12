/** The public surface of the notifications read model: each user's inbox on a site. */
export { notificationsProjector } from './notifications.projector.ts';
export {
  findInboxEntry,
  listInbox,
  pruneHandledNotifications,
  unhandledIds,
  type InboxViewer,
  type NotificationRecord,
} from './notifications.queries.ts';
