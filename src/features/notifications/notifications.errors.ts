import { defineError } from '../../kernel/http/errors.ts';

/** Not in the caller's inbox: another user's, another site's, or none at all answer alike. */
export const NotificationNotFound = defineError<{ notificationId: string }>(
  'NOT_FOUND',
  'not_found',
  (d) => `notification ${d.notificationId} not found`,
);

/** An inbox is a person's: an API key has none. */
export const InboxNeedsUser = defineError<Record<string, never>>(
  'PERMISSION_DENIED',
  'forbidden',
  () => 'notifications are a signed-in user’s; an API key has no inbox',
);
