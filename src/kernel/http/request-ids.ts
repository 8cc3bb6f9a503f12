import type { FastifyRequest } from 'fastify';

/** What X-Request-Id and X-Correlation-Id may hold: a short token, never free text stored into every event. */
export const REQUEST_ID = /^[A-Za-z0-9._:-]{8,128}$/;

/** A request id the client chose, when it is well formed. */
export function givenId(value: string | string[] | undefined): string | null {
  return typeof value === 'string' && REQUEST_ID.test(value) ? value : null;
}

/** The correlation id of a request: the client's X-Correlation-Id when well formed, else the request id. */
export function correlationOf(req: FastifyRequest): string {
  return givenId(req.headers['x-correlation-id']) ?? req.id;
}
