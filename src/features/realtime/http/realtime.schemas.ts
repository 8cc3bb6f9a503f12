import { z } from 'zod';

export const TicketAnswer = z.object({
  ticket: z.string(),
  expiresAt: z.iso.datetime(),
  /** Where to connect with it: Server-Sent Events and WebSocket. */
  sse: z.string(),
  websocket: z.string(),
});

export const ConnectQuery = z.object({
  ticket: z.string().max(4096).optional(),
  /** For a client that cannot set the Last-Event-ID header (a new EventSource). */
  lastEventId: z.string().max(64).optional(),
  /** Live item subscriptions from the start: a JSON array of `{ id, collection, query?, events? }`. */
  subscribe: z
    .string()
    .max(16 * 1024)
    .optional(),
});
