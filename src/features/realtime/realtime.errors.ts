import { defineError } from '../../kernel/http/errors.ts';

/** A realtime connection is a signed-in person's: an API key gets no ticket. */
export const RealtimeNeedsUser = defineError<Record<string, never>>(
  'PERMISSION_DENIED',
  'forbidden',
  () => 'realtime connections are for signed-in users; an API key gets no ticket',
);

/** No ticket, a forged or malformed one, or one already used. */
export const TicketRefused = defineError<{
  reason: 'ticket_required' | 'ticket_invalid' | 'ticket_used' | 'access_revoked';
}>(
  'UNAUTHENTICATED',
  'unauthenticated',
  (d) =>
    ({
      ticket_required: 'a realtime connection needs ?ticket= from POST /api/v1/realtime/ticket',
      ticket_invalid: 'the realtime ticket is not valid',
      ticket_used: 'the realtime ticket was used already: each ticket opens one connection',
      access_revoked: 'the account or session behind the ticket no longer has access',
    })[d.reason],
  (d) => ({ path: ['ticket'], extensions: { reason: d.reason } }),
);

/** A ticket lives one minute. */
export const TicketExpired = defineError<Record<string, never>>(
  'TOKEN_EXPIRED',
  'unauthenticated',
  () => 'the realtime ticket expired (tickets live one minute): ask for a new one',
  () => ({ path: ['ticket'], extensions: { reason: 'ticket_expired' } }),
);

/** The ticket is bound to another site than the one the request names. */
export const TicketOtherSite = defineError<Record<string, never>>(
  'PERMISSION_DENIED',
  'forbidden',
  () => 'the realtime ticket was issued for another site',
  () => ({ extensions: { reason: 'ticket_site' } }),
);

/** This node holds as many connections as it may. */
export const RealtimeFull = defineError<{ max: number }>(
  'SERVICE_UNAVAILABLE',
  'unavailable',
  (d) => `this node holds its ${d.max} realtime connections: try again shortly`,
  () => ({ extensions: { reason: 'realtime_full' } }),
);

/** `Last-Event-ID` (or `lastEventId`) is not a position this service hands out. */
export const BadLastEventId = defineError<Record<string, never>>(
  'VALIDATION_FAILED',
  'invalid',
  () => 'Last-Event-ID is not a frame id of this service',
  () => ({ path: ['lastEventId'] }),
);

/** `subscribe=` on the connection address is not a list of valid subscriptions. */
export const SubscriptionListInvalid = defineError<{ message: string }>(
  'VALIDATION_FAILED',
  'invalid',
  (d) => d.message,
  () => ({ path: ['subscribe'] }),
);
