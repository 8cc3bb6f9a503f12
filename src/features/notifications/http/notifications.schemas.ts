import { z } from 'zod';
import { NOTIFICATION_KINDS, SEVERITIES } from '../../../contracts/notifications/notifications.events.ts';
import { pathId } from '../../../kernel/http/path-params.ts';

/** A notification as the inbox shows it: the spec's payload, its recipient, and whether the caller handled it. */
export const NotificationBody = z
  .object({
    id: z.string(),
    kind: z.enum(NOTIFICATION_KINDS),
    severity: z.enum(SEVERITIES),
    title: z.string(),
    body: z.string(),
    deepLink: z.string().nullable(),
    entityId: z.string().nullable(),
    ts: z.string(),
    recipient: z.union([
      z.object({ type: z.enum(['user', 'role']), id: z.string() }),
      z.object({ type: z.literal('admins') }),
    ]),
    handled: z.boolean(),
    handledAt: z.string().nullable(),
    seq: z.string().describe('Its place in the log: realtime frames carry it as their id'),
  })
  .meta({ id: 'Notification' });

const flag = z.enum(['true', 'false', '1', '0']).transform((v) => v === 'true' || v === '1');

export const InboxQuery = z.object({
  unhandled: flag.default(false).describe('Only notifications the caller has not handled'),
  limit: z.coerce.number().int().min(1).max(200).default(25),
  offset: z.coerce.number().int().min(0).max(1_000_000).default(0),
});
export const InboxMeta = z.object({ total: z.number().int(), limit: z.number().int(), offset: z.number().int() });
export const NotificationParams = z.object({ id: pathId(200) });
export const HandledBody = z.object({ handled: z.boolean() }).strict();
export const HandleAllResult = z.object({ handled: z.number().int() });
