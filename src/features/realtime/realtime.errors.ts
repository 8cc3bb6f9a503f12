import { defineError } from '../../kernel/http/errors.ts';

/** A realtime connection is a signed-in person's own session's: API keys, impersonations and outside tokens get none. */
export const RealtimeNeedsUser = defineError<{ reason: 'api_key' | 'impersonation' | 'no_account' }>(
  'PERMISSION_DENIED',
  'forbidden',
  (d) =>
    ({
      api_key: 'realtime connections are for signed-in users; an API key gets no ticket',
      impersonation: 'an impersonation gets no realtime ticket',
      no_account: 'realtime tickets are for accounts of this service signed in with a session',
    })[d.reason],
  (d) => ({ extensions: { reason: d.reason } }),
);

/** A user holds as many realtime connections on the site on this node as one may. */
export const TooManyConnections = defineError<{ max: number }>(
  'CONFLICT',
  'conflict',
  (d) => `you hold ${d.max} realtime connections on this site already: close one first`,
  (d) => ({ extensions: { reason: 'connection_limit', max: d.max } }),
);

/** A plain request to the WebSocket address. */
export const UpgradeRequired = defineError<Record<string, never>>(
  'VALIDATION_FAILED',
  'invalid',
  () => 'this address opens a WebSocket: send an Upgrade: websocket request',
  () => ({ path: ['upgrade'], extensions: { reason: 'upgrade_required' } }),
);

/** No ticket, a forged or malformed one, or one already used. */
export const TicketRefused = defineError<{
  reason: 'ticket_required' | 'ticket_invalid' | 'ticket_used';
}>(
  'UNAUTHENTICATED',
  'unauthenticated',
  (d) =>
    ({
      ticket_required: 'a realtime connection needs ?ticket= from POST /api/v1/realtime/ticket',
      ticket_invalid: 'the realtime ticket is not valid',
      ticket_used: 'the realtime ticket was used already: each ticket opens one connection',
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
