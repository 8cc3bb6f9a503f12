import { assertNever, type Decider } from '../../kernel/es/decider.ts';
import { statusOf } from './release.decider.ts';
import { AlreadyPublished, EmptyRelease, NotPublishing, PublishInProgress, ReleaseNotFound } from './release.errors.ts';
import {
  evolveRelease,
  initialReleaseState,
  itemKey,
  type Outcome,
  type ReleaseEvent,
  type ReleaseItem,
  type ReleaseItemPublished,
  type ReleasePublished,
  type ReleasePublishStarted,
  type ReleaseState,
} from '../../contracts/releases/release.events.ts';

/** One item as the checks before any write found it: null, or the reason it cannot be published (ITEM_DELETED, …). */
export interface Verdict {
  item: ReleaseItem;
  blocked: string | null;
}

type At = { releaseId: string; now: string };

/**
 * The steps of a publish. `Publish` opens it with every item's verdict; all_or_nothing ends there, unless the one
 * atomic append is refused when written (`FailAtOnce`, with the refusal's code); best_effort records each item
 * (`RecordItem`, again with the refusal's code when its own append is refused) and then `Finish`es.
 */
export type PublishCommand =
  | { type: 'Publish'; data: At & { by: string; verdicts: Verdict[] } }
  | { type: 'FailAtOnce'; data: At & { by: string; reason: string } }
  | { type: 'RecordItem'; data: At & { verdict: Verdict } }
  | { type: 'Finish'; data: At & { by: string } };

/** What a publish records on the release's stream: release events (a publish has no events of its own). */
export type PublishEvent = ReleasePublishStarted | ReleaseItemPublished | ReleasePublished;

type Existing = Extract<ReleaseState, { exists: true }>;
/** all_or_nothing writes every item and the end in one append; a publish a crash cut off resumes one by one. */
const isAtOnce = (s: Existing) => s.atomicityMode === 'all_or_nothing' && !s.publishing;

/**
 * What a publish of the release works through, or the refusal of it as a whole: gone (NOT_FOUND), published
 * (ALREADY_PUBLISHED) or without items (EMPTY_RELEASE). A publish a crash cut off resumes with the items it started
 * with.
 */
export function publishTarget(s: ReleaseState, releaseId: string) {
  if (!s.exists || s.deleted) throw new ReleaseNotFound({ releaseId });
  if (s.status === 'published') throw new AlreadyPublished({ releaseId });
  const items = s.publishing?.items ?? s.items;
  if (!items.length) throw new EmptyRelease({ releaseId });
  return { release: s, items, resuming: s.publishing !== null };
}

const outcome = (i: ReleaseItem, o: Outcome['outcome'], reason?: string | null): Outcome => ({
  collection: i.collection,
  itemId: i.itemId,
  outcome: o,
  ...(reason ? { reason } : {}),
});

/** The end of a publish with these outcomes; the status follows from them (statusOf). */
const ended = (releaseId: string, outcomes: Outcome[], by: string, at: string): ReleasePublished => ({
  type: 'ReleasePublished',
  data: { releaseId, status: statusOf(outcomes), outcomes, by, at },
});

/**
 * all_or_nothing: published whole when no item is blocked (the item updates go in the same append), else failed,
 * each blocked item with its reason and the others skipped. best_effort: started, unless a cut-off publish resumes.
 */
function publish(cmd: Extract<PublishCommand, { type: 'Publish' }>, s: ReleaseState): PublishEvent[] {
  const { releaseId, by, now: at, verdicts } = cmd.data;
  const { release, items } = publishTarget(s, releaseId);
  if (release.publishing) return [];
  if (!isAtOnce(release)) return [{ type: 'ReleasePublishStarted', data: { releaseId, items, by, at } }];
  const blocked = verdicts.some((v) => v.blocked);
  const outcomes = verdicts.map((v) =>
    blocked ? outcome(v.item, v.blocked ? 'failed' : 'skipped', v.blocked) : outcome(v.item, 'published'),
  );
  return [ended(releaseId, outcomes, by, at)];
}

/** The publish process over a release's stream: it folds the release's events and decides which of them to add. */
export function decidePublish(cmd: PublishCommand, s: ReleaseState): PublishEvent[] {
  const { releaseId, now: at } = cmd.data;
  switch (cmd.type) {
    case 'Publish':
      return publish(cmd, s);
    case 'FailAtOnce': {
      // The items changed between the checks and the append (another writer): still nothing of them is published.
      const { release, items } = publishTarget(s, releaseId);
      if (!isAtOnce(release)) throw new PublishInProgress({ releaseId });
      const failed = items.map((i) => outcome(i, 'failed', cmd.data.reason));
      return [ended(releaseId, failed, cmd.data.by, at)];
    }
    case 'RecordItem': {
      const { release } = publishTarget(s, releaseId);
      if (!release.publishing) throw new NotPublishing({ releaseId });
      const { item, blocked } = cmd.data.verdict;
      // At least once: an item whose outcome the log holds (a resumed publish) is not published again.
      if (release.publishing.outcomes.some((o) => itemKey(o) === itemKey(item))) return [];
      const recorded = blocked ? outcome(item, 'failed', blocked) : outcome(item, 'published');
      return [{ type: 'ReleaseItemPublished', data: { releaseId, outcome: recorded, at } }];
    }
    case 'Finish': {
      const { release } = publishTarget(s, releaseId);
      if (!release.publishing) throw new NotPublishing({ releaseId });
      return [ended(releaseId, release.publishing.outcomes, cmd.data.by, at)];
    }
    default:
      return assertNever(cmd);
  }
}

/**
 * The publish process as a decider: pure over the release's own state (DESIGN §5). The release decider still
 * admits each event when it is appended, against the stream as it is then, so a publish that raced another ends
 * in that decider's refusal instead of a second end.
 */
export const publishDecider: Decider<ReleaseState, PublishCommand, ReleaseEvent> = {
  initialState: initialReleaseState,
  evolve: evolveRelease,
  decide: decidePublish,
};
