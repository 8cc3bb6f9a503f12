import type { AppDeps } from '../../deps.ts';
import { DomainError } from '../../kernel/http/errors.ts';
import { dueReleases, findRelease } from '../../../projections/releases/index.ts';
import { windowAllows } from './maintenance-window.ts';
import { publishRelease } from './publish.process.ts';

/**
 * The content scheduler's tick: publishes every scheduled release whose time has come and whose maintenance window
 * is open now, and finishes publishes a crash cut off. Idempotent: a release another tick or node published
 * meanwhile answers ALREADY_PUBLISHED (or CONFLICT while one is running) and is skipped.
 */
export async function sweepDueReleases(deps: AppDeps): Promise<{ siteId: string; id: string; status: string }[]> {
  const now = deps.clock.now();
  const done: { siteId: string; id: string; status: string }[] = [];
  for (const due of await dueReleases(deps.db, now)) {
    const release = await findRelease(deps.db, due.siteId, due.id);
    if (!release) continue;
    if (!release.publishing && !windowAllows(release.maintenanceWindow, now)) continue;
    try {
      const res = await publishRelease(deps, {
        siteId: due.siteId,
        releaseId: due.id,
        metadata: {
          siteId: due.siteId,
          actor: { type: 'scheduler', id: 'content-scheduler' },
          correlationId: `release:${due.id}`,
          causationId: null,
          requestId: null,
          occurredAt: now.toISOString(),
        },
        // The scheduler has no rights of its own: each item is checked with the author's rights as they are now.
        publisher: null,
      });
      done.push({ ...due, status: res.status });
    } catch (err) {
      // Published or running elsewhere: nothing to do. Anything else that refuses (a missing item, a staged
      // revision) leaves the release scheduled, for its owner to fix; the next tick tries again.
      if (err instanceof DomainError) continue;
      throw err;
    }
  }
  return done;
}
