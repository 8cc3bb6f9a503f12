import type { AppDeps } from '../../deps.ts';
import type { EventMetadata } from '../../kernel/es/event.ts';
import { handleCommand } from '../../kernel/es/handle-command.ts';
import { DomainError } from '../../kernel/http/errors.ts';
import { dueReleases, findRelease, type ReleaseRecord } from '../../../projections/releases/index.ts';
import { windowAllows } from './maintenance-window.ts';
import { releaseDecider, waitingRequest } from './release.decider.ts';
import { releaseStream } from '../../contracts/releases/release.events.ts';
import { RELEASE_PUBLISHER } from './publish.reactor.ts';

/**
 * A scheduled publish refused as a whole (an item gone, a staged revision) is asked for again after this long, doubled
 * with each refusal in a row up to a day; a change to the release asks again at once.
 */
export const REFUSED_RETRY_MS = 5 * 60_000;
const REFUSED_RETRY_MAX_MS = 24 * 3600_000;
const retryAfter = (times: number) => Math.min(REFUSED_RETRY_MS * 2 ** Math.min(times - 1, 20), REFUSED_RETRY_MAX_MS);

/**
 * Whether the scheduler asks for this release's publish now (pure): due or cut off by a crash, inside its
 * maintenance window (a publish already running finishes whatever the window), no request waiting for an answer
 * (one the publisher gave up on is asked again after REQUEST_STALE_MS), and no refusal within its retry time (the
 * release's owner fixes it; a change to the release retries at once).
 */
export function requestFor(r: ReleaseRecord, now: Date): 'due' | 'resume' | null {
  if (waitingRequest(r.publishRequested, now.toISOString())) return null;
  const refused = r.lastRefusal;
  if (refused && now.getTime() - Date.parse(refused.at) < retryAfter(refused.times ?? 1)) return null;
  if (r.publishing) return 'resume';
  return windowAllows(r.maintenanceWindow, now) ? 'due' : null;
}

const ENDED = new Set(['published', 'partially_failed', 'failed']);

const schedulerMetadata = (siteId: string, releaseId: string, now: Date): EventMetadata => ({
  siteId,
  actor: { type: 'scheduler', id: 'content-scheduler' },
  correlationId: `release:${releaseId}`,
  causationId: null,
  requestId: null,
  occurredAt: now.toISOString(),
});

/**
 * The content scheduler's tick: turns the time into ReleasePublishRequested for every release that is due (or was
 * cut off by a crash), then lets the release publisher (a reactor) answer them, and reports the publishes that
 * ended. Idempotent: a release requested or published meanwhile (another tick, another node, a manual publish) is
 * refused by its decider and skipped.
 */
export async function sweepDueReleases(deps: AppDeps): Promise<{ siteId: string; id: string; status: string }[]> {
  const now = deps.clock.now();
  const requested: { siteId: string; id: string }[] = [];
  for (const release of await dueReleases(deps.db, now)) {
    const due = { siteId: release.siteId, id: release.id };
    const reason = requestFor(release, now);
    if (!reason) continue;
    try {
      await handleCommand(
        deps.store,
        releaseDecider,
        releaseStream(due.siteId, due.id),
        { type: 'RequestPublish', data: { releaseId: due.id, reason, now: now.toISOString() } },
        { metadata: schedulerMetadata(due.siteId, due.id, now) },
      );
      requested.push(due);
    } catch (err) {
      if (err instanceof DomainError) continue;
      throw err;
    }
  }
  if (requested.length === 0) return [];
  await deps.drainReactors(RELEASE_PUBLISHER);
  const done: { siteId: string; id: string; status: string }[] = [];
  for (const r of requested) {
    const after = await findRelease(deps.db, r.siteId, r.id);
    if (after && !after.publishing && !after.publishRequested && ENDED.has(after.status))
      done.push({ ...r, status: after.status });
  }
  return done;
}
