import { assertNever, type Decider } from '../../kernel/es/decider.ts';
import {
  evolveRelease,
  initialReleaseState,
  mergeItems,
  type ReleaseState,
} from '../../contracts/releases/release.events.ts';
export type { ReleaseState } from '../../contracts/releases/release.events.ts';
import {
  AlreadyPublished,
  EmptyRelease,
  NotPublishing,
  PublishInProgress,
  ReleaseExists,
  ReleaseImmutable,
  ReleaseNotFound,
} from './release.errors.ts';
import {
  itemKey,
  type Outcome,
  type ReleaseAuthor,
  type ReleaseEvent,
  type ReleaseItem,
  type ReleaseMeta,
  type ReleaseStatus,
} from '../../contracts/releases/release.events.ts';

type Now = { releaseId: string; now: string };
export type ReleaseCommand =
  | { type: 'CreateRelease'; data: Now & ReleaseMeta & { items: ReleaseItem[]; by: string; author?: ReleaseAuthor } }
  | {
      type: 'UpdateRelease';
      data: Now & {
        changes: Partial<ReleaseMeta>;
        add: ReleaseItem[];
        remove: { collection: string; itemId: string }[];
      };
    }
  | { type: 'DeleteRelease'; data: Now }
  | { type: 'StartPublish'; data: Now & { by: string } }
  | { type: 'RecordOutcome'; data: Now & { outcome: Outcome } }
  | { type: 'FinishPublish'; data: Now & { outcomes: Outcome[]; by: string } }
  | { type: 'RequestPublish'; data: Now & { reason: 'due' | 'resume' } }
  | { type: 'RefusePublish'; data: Now & { code: string } };

const TERMINAL: ReleaseStatus[] = ['published'];
/** Published, failed or partly: the status a publish ends in (DESIGN §5). */
export function statusOf(outcomes: Outcome[]): 'published' | 'partially_failed' | 'failed' {
  const published = outcomes.filter((o) => o.outcome === 'published').length;
  if (published === outcomes.length) return 'published';
  return published === 0 ? 'failed' : 'partially_failed';
}

/**
 * How long a publish request waits for its answer before the scheduler may ask again: longer than the release
 * publisher's retries of one event (about two minutes), so only a request it gave up on (parked) is asked again.
 */
export const REQUEST_STALE_MS = 15 * 60_000;
/** Whether a request is still waiting for its answer at `now` (one older than REQUEST_STALE_MS is given up). */
export const waitingRequest = (requestedAt: string | null | undefined, now: string): boolean =>
  !!requestedAt && Date.parse(now) - Date.parse(requestedAt) < REQUEST_STALE_MS;

type Existing = Extract<ReleaseState, { exists: true }>;
function live(s: ReleaseState, id: string): Existing {
  if (!s.exists || s.deleted) throw new ReleaseNotFound({ releaseId: id });
  return s;
}
const mutable = (s: Existing, id: string) => {
  if (s.status === 'published') throw new ReleaseImmutable({ releaseId: id });
  if (s.publishing) throw new PublishInProgress({ releaseId: id });
};

export const releaseDecider: Decider<ReleaseState, ReleaseCommand, ReleaseEvent> = {
  initialState: initialReleaseState,
  evolve: evolveRelease,
  decide: (cmd, s) => {
    const { releaseId, now: at } = cmd.data;
    switch (cmd.type) {
      case 'CreateRelease': {
        if (s.exists) throw new ReleaseExists({ releaseId });
        const { now: _n, ...data } = cmd.data;
        return [{ type: 'ReleaseCreated', data: { ...data, items: mergeItems([], data.items, []), at } }];
      }
      case 'UpdateRelease': {
        const r = live(s, releaseId);
        mutable(r, releaseId);
        return [
          {
            type: 'ReleaseUpdated',
            data: { releaseId, changes: cmd.data.changes, added: cmd.data.add, removed: cmd.data.remove, at },
          },
        ];
      }
      case 'DeleteRelease': {
        const r = live(s, releaseId);
        if (r.publishing) throw new PublishInProgress({ releaseId });
        return [{ type: 'ReleaseDeleted', data: { releaseId, at } }];
      }
      case 'StartPublish': {
        const r = live(s, releaseId);
        if (TERMINAL.includes(r.status)) throw new AlreadyPublished({ releaseId });
        if (r.publishing) throw new PublishInProgress({ releaseId });
        if (!r.items.length) throw new EmptyRelease({ releaseId });
        return [{ type: 'ReleasePublishStarted', data: { releaseId, items: r.items, by: cmd.data.by, at } }];
      }
      case 'RecordOutcome': {
        const r = live(s, releaseId);
        if (!r.publishing) throw new NotPublishing({ releaseId });
        if (r.publishing.outcomes.some((o) => itemKey(o) === itemKey(cmd.data.outcome))) return [];
        return [{ type: 'ReleaseItemPublished', data: { releaseId, outcome: cmd.data.outcome, at } }];
      }
      case 'FinishPublish': {
        const r = live(s, releaseId);
        if (TERMINAL.includes(r.status)) throw new AlreadyPublished({ releaseId });
        if (!r.items.length && !r.publishing) throw new EmptyRelease({ releaseId });
        const status = statusOf(cmd.data.outcomes);
        return [
          { type: 'ReleasePublished', data: { releaseId, status, outcomes: cmd.data.outcomes, by: cmd.data.by, at } },
        ];
      }
      case 'RequestPublish': {
        const r = live(s, releaseId);
        if (TERMINAL.includes(r.status)) throw new AlreadyPublished({ releaseId });
        if (waitingRequest(r.publishRequested, at)) throw new PublishInProgress({ releaseId });
        return [{ type: 'ReleasePublishRequested', data: { releaseId, reason: cmd.data.reason, at } }];
      }
      case 'RefusePublish': {
        // Only a request still waiting is answered: a publish that ended meanwhile answered it already.
        if (!s.exists || !s.publishRequested) return [];
        return [{ type: 'ReleasePublishRefused', data: { releaseId, code: cmd.data.code, at } }];
      }
      default:
        return assertNever(cmd);
    }
  },
};
