import type { FastifyRequest } from 'fastify';
import { actorRef } from '../auth/actor.ts';
import type { Clock } from '../clock.ts';
import type { ActorRef, EventMetadata } from '../es/event.ts';
import { siteOf } from './access.ts';
import { flowCallCause, flowTreeOf, treeCorrelation } from './flow-tree.ts';
import { ifMatchVersion } from './if-match.ts';
import { correlationOf } from './request-ids.ts';

/**
 * Event metadata for a command sent by an HTTP request. A request that continues a flow run tree (a genuine
 * x-svc-flow-tree header of this site) writes as that tree's work: the root in the correlation, the calling step as
 * the causation, so the event runs its writes start spend the root's budget.
 */
function commandMeta(req: FastifyRequest, siteId: string, now: Date): EventMetadata {
  const tree = flowTreeOf(req);
  const inTree = tree !== null && tree.siteId === siteId;
  return {
    siteId,
    actor: actorRef(req.actor),
    correlationId: inTree ? treeCorrelation(tree.rootRunId) : correlationOf(req),
    causationId: inTree ? flowCallCause(tree.runId, tree.nodeId) : null,
    requestId: req.id,
    occurredAt: now.toISOString(),
  };
}

/**
 * What a command needs from whoever sends it, built once per request (or by a process manager for the person
 * behind it): the site, the actor, one reading of the clock, the event metadata and the version If-Match names.
 */
export interface CommandContext {
  siteId: string;
  actor: ActorRef;
  now: Date;
  metadata: EventMetadata;
  /** The record version the client saw (If-Match): a conflict then answers 409 instead of being retried. */
  expectedVersion?: number;
}

/** The command context of a request on `siteId` (by default the request's site). */
export function commandContext(req: FastifyRequest, clock: Clock, siteId = siteOf(req)): CommandContext {
  const now = clock.now();
  const metadata = commandMeta(req, siteId, now);
  const expectedVersion = ifMatchVersion(req);
  return {
    siteId,
    actor: metadata.actor,
    now,
    metadata,
    ...(expectedVersion === undefined ? {} : { expectedVersion }),
  };
}
