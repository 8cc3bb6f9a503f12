import type { AppDeps } from '../../deps.ts';
import { aggregateStream } from '../../kernel/es/aggregate-stream.ts';
import type { EventMetadata } from '../../kernel/es/event.ts';
import { handleCommand } from '../../kernel/es/handle-command.ts';
import type { StoredEventOf } from '../../kernel/es/projector.ts';
import { defineReactor, type Reactor } from '../../kernel/es/reactor.ts';
import { DomainError } from '../../kernel/http/errors.ts';
import { releaseDecider, type ReleaseState } from './release.decider.ts';
import {
  releaseStream,
  type ReleaseEvent,
  type ReleasePublishRequested,
} from '../../contracts/releases/release.events.ts';
import { publishRelease } from './publish.process.ts';

export const RELEASE_PUBLISHER = 'release-publisher';

/** Publish the release as its author (the scheduler lends it no right of its own). */
export type PublishRequested = { type: 'PublishRelease'; siteId: string; releaseId: string };

/**
 * The publish a request asks for, unless the log has answered it already (published, refused, deleted): so a
 * request handled again after a crash, or overtaken by a manual publish, publishes nothing twice.
 */
export function publishRequests(e: StoredEventOf<ReleasePublishRequested>, s: ReleaseState): PublishRequested[] {
  if (!s.exists || s.deleted || !s.publishRequested) return [];
  return [{ type: 'PublishRelease', siteId: e.siteId, releaseId: e.data.releaseId }];
}

/** What the scheduler's publishes are recorded as: its own actor, caused by the request they answer. */
const publishMetadata = (deps: AppDeps, e: StoredEventOf<ReleasePublishRequested>): EventMetadata => ({
  siteId: e.siteId,
  actor: { type: 'scheduler', id: 'content-scheduler' },
  correlationId: e.metadata.correlationId,
  causationId: e.eventId,
  requestId: null,
  occurredAt: deps.clock.now().toISOString(),
});

/**
 * The release publisher: answers each ReleasePublishRequested with the publish (every item checked with the
 * author's rights as they are now), or, when the release refuses to publish as a whole (an item gone, a staged
 * revision, no items), with ReleasePublishRefused naming the code, so the log says why a due release did not go out.
 */
export function releasePublisher(deps: AppDeps): Reactor {
  return defineReactor<ReleasePublishRequested, ReleaseState, PublishRequested>({
    name: RELEASE_PUBLISHER,
    handles: ['ReleasePublishRequested'],
    // The stream, not the read model: in the subscription mode the read model may not have seen the request yet.
    load: async (e) =>
      (
        await aggregateStream<ReleaseState, ReleaseEvent>(
          deps.store,
          releaseStream(e.siteId, e.data.releaseId),
          releaseDecider.evolve,
          releaseDecider.initialState,
        )
      ).state,
    react: publishRequests,
    send: async (cmd, e) => {
      const metadata = publishMetadata(deps, e);
      try {
        await publishRelease(deps, { siteId: cmd.siteId, releaseId: cmd.releaseId, metadata, publisher: null });
      } catch (err) {
        if (!(err instanceof DomainError)) throw err;
        const data = { releaseId: cmd.releaseId, code: err.code, now: metadata.occurredAt };
        await handleCommand(
          deps.store,
          releaseDecider,
          releaseStream(cmd.siteId, cmd.releaseId),
          { type: 'RefusePublish', data },
          { metadata },
        );
      }
    },
  });
}
