import type { FastifyRequest } from 'fastify';
import { actorRef } from '../auth/actor.ts';
import type { EventMetadata } from '../es/event.ts';
import { correlationOf } from './request-ids.ts';

/** Event metadata for a command sent by an HTTP request. */
export function commandMeta(req: FastifyRequest, siteId: string, now: Date): EventMetadata {
  return {
    siteId,
    actor: actorRef(req.actor),
    correlationId: correlationOf(req),
    causationId: null,
    requestId: req.id,
    occurredAt: now.toISOString(),
  };
}
