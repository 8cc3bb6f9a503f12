import type { AppDeps } from '../../deps.ts';
import type { EventMetadata } from '../../kernel/es/event.ts';
import { handleCommand } from '../../kernel/es/handle-command.ts';
import type { CommandContext } from '../../kernel/http/command-meta.ts';
import { readAsSite } from '../../kernel/tenancy/site.ts';
import { unhandledIds, type InboxViewer } from '../../../projections/notifications/index.ts';
import { inboxDecider, notificationDecider } from './notifications.decider.ts';
import {
  inboxStream,
  notificationStream,
  type NotificationContent,
  type Recipient,
} from '../../contracts/notifications/notifications.events.ts';

type Deps = Pick<AppDeps, 'db' | 'store'>;

/** Longest title and body a notification keeps (a producer's text is cut, never refused). */
export const MAX_TITLE = 200;
export const MAX_BODY = 2000;
/** Notifications one handle-all marks per event. */
export const HANDLE_CHUNK = 500;
/** Notifications one handle-all call marks at most; the caller calls again for the rest. */
export const HANDLE_ALL_MAX = 10_000;

/** What a producer raises: the content, its recipient, and an id derived from what caused it (so it is raised once). */
export interface NotifyInput extends NotificationContent {
  siteId: string;
  notificationId: string;
  recipient: Recipient;
  metadata: EventMetadata;
}

/**
 * Raises a notification (the internal `notify()` every producer uses): once per id, whatever the redeliveries. The
 * transports (inbox, realtime, Web Push) all follow from the one NotificationRaised.
 */
export async function notify(deps: Deps, input: NotifyInput): Promise<void> {
  const { siteId, notificationId, recipient, metadata, ...content } = input;
  await handleCommand(
    deps.store,
    notificationDecider,
    notificationStream(siteId, notificationId),
    {
      type: 'RaiseNotification',
      data: {
        ...content,
        title: content.title.slice(0, MAX_TITLE),
        body: content.body.slice(0, MAX_BODY),
        notificationId,
        recipient,
        now: metadata.occurredAt,
      },
    },
    { metadata },
  );
}

type Ctx = Pick<CommandContext, 'siteId' | 'now' | 'metadata'>;

/** Marks notifications of the caller's inbox handled or unhandled (the ids were checked against the inbox). */
export async function markHandled(
  deps: Deps,
  ctx: Ctx,
  input: { userId: string; notificationIds: string[]; handled: boolean },
): Promise<void> {
  for (let i = 0; i < input.notificationIds.length; i += HANDLE_CHUNK)
    await handleCommand(
      deps.store,
      inboxDecider,
      inboxStream(ctx.siteId, input.userId),
      {
        type: 'HandleNotifications',
        data: {
          userId: input.userId,
          notificationIds: input.notificationIds.slice(i, i + HANDLE_CHUNK),
          handled: input.handled,
          now: ctx.now.toISOString(),
        },
      },
      { metadata: ctx.metadata },
    );
}

/** Marks every unhandled notification of the caller's inbox handled (at most HANDLE_ALL_MAX a call); how many. */
export async function handleAll(deps: Deps, ctx: Ctx, viewer: InboxViewer): Promise<number> {
  const ids = await readAsSite(deps.db, ctx.siteId, (db) => unhandledIds(db, ctx.siteId, viewer, HANDLE_ALL_MAX));
  await markHandled(deps, ctx, { userId: viewer.userId, notificationIds: ids, handled: true });
  return ids.length;
}
