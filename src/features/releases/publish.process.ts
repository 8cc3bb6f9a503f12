import type { AppDeps } from '../../deps.ts';
import { aggregateStream } from '../../kernel/es/aggregate-stream.ts';
import { assertNever } from '../../kernel/es/decider.ts';
import type { EventMetadata } from '../../kernel/es/event.ts';
import { handleCommand, handleCommands, streamCommand, type StreamCommand } from '../../kernel/es/handle-command.ts';
import { DomainError } from '../../kernel/http/errors.ts';
import { VersionConflict } from '../../kernel/http/kernel.errors.ts';
import { checkItems, type Prepared } from './publish.checks.ts';
import { decidePublish, publishTarget, type PublishEvent } from './publish.decider.ts';
import type { Caller } from './release-authority.ts';
import { releaseDecider, type ReleaseCommand, type ReleaseState } from './release.decider.ts';
import { AlreadyPublished } from './release.errors.ts';
import {
  releaseStream,
  type Outcome,
  type ReleaseAuthor,
  type ReleaseCreated,
  type ReleaseEvent,
  type ReleaseItemPublished,
  type ReleasePublished,
} from '../../contracts/releases/release.events.ts';

export interface PublishInput {
  siteId: string;
  releaseId: string;
  metadata: EventMetadata;
  /**
   * The request of a manual publish: its caller's rights are checked besides the author's. Null for the content
   * scheduler, which acts with the author's rights alone.
   */
  publisher: Caller | null;
}

/** The release and its author, folded from its stream: once per publish, whatever its mode. */
async function load(deps: AppDeps, siteId: string, releaseId: string) {
  let author: ReleaseAuthor | null = null;
  const { state } = await aggregateStream<ReleaseState, ReleaseEvent>(
    deps.store,
    releaseStream(siteId, releaseId),
    (s, e, stored) => {
      if (e.type === 'ReleaseCreated') author = authorOf(e.data, stored.metadata.actor.type);
      return releaseDecider.evolve(s, e);
    },
    () => releaseDecider.initialState(),
  );
  // Set inside the fold, which the compiler does not follow: the annotation keeps both possibilities.
  return { state, author: author as ReleaseAuthor | null };
}

/** The release's author; for releases created before it was recorded, `by` and the creating event's actor. */
function authorOf(data: ReleaseCreated['data'], actorType: string): ReleaseAuthor | null {
  if (data.author) return data.author;
  return actorType === 'user' || actorType === 'apiKey' ? { type: actorType, id: data.by, amr: [] } : null;
}

type PublishResult = { status: string; outcomes: Outcome[] };

/** The end a publish's steps decided (every step that ends a publish decides exactly one). */
function endOf(events: PublishEvent[]): ReleasePublished {
  const end = events.find((e) => e.type === 'ReleasePublished');
  if (!end) throw new Error('a publish ends with ReleasePublished');
  return end;
}
const resultOf = (end: ReleasePublished): PublishResult => ({ status: end.data.status, outcomes: end.data.outcomes });

/**
 * The release decider's command that appends a publish's event: the release decider admits it against the stream
 * as it is at the append, so a publish that lost a race to another ends in that decider's refusal.
 */
function admit(e: PublishEvent): ReleaseCommand {
  const { releaseId, at: now } = e.data;
  switch (e.type) {
    case 'ReleasePublishStarted':
      return { type: 'StartPublish', data: { releaseId, by: e.data.by, now } };
    case 'ReleaseItemPublished':
      return { type: 'RecordOutcome', data: { releaseId, outcome: e.data.outcome, now } };
    case 'ReleasePublished':
      return { type: 'FinishPublish', data: { releaseId, outcomes: e.data.outcomes, by: e.data.by, now } };
    default:
      return assertNever(e);
  }
}

/** How a publish's events reach the release's stream, each step stamped with the clock's reading when it is taken. */
function publishLog(deps: AppDeps, input: PublishInput) {
  const { siteId, releaseId, metadata } = input;
  const opts = { metadata };
  const streamId = releaseStream(siteId, releaseId);
  return {
    by: metadata.actor.id,
    at: () => ({ releaseId, now: deps.clock.now().toISOString() }),
    /** The event alone (from this node's state of the stream when it wrote last, without a read). */
    append: async (e: PublishEvent) =>
      (await handleCommand(deps.store, releaseDecider, streamId, admit(e), opts)).state,
    /** The event and the item updates it stands for in one atomic append; the release's state after it. */
    appendWith: async (updates: StreamCommand[], e: PublishEvent) => {
      const release = streamCommand({ decider: releaseDecider, streamId, command: admit(e) });
      const results = await handleCommands(deps.store, [...updates, release], opts);
      // The release's command comes last, and its decider is the release decider.
      return results.at(-1)!.state as ReleaseState;
    },
  };
}
type PublishLog = ReturnType<typeof publishLog>;

/**
 * all_or_nothing: every item update and the release's end are ONE atomic append, so a crash leaves all of it or
 * none; with an item blocked, the failed end is written alone.
 */
async function publishAtOnce(log: PublishLog, state: ReleaseState, prepared: Prepared[], end: ReleasePublished) {
  const updates = end.data.status === 'published' ? prepared.map((p) => p.command!) : [];
  try {
    await log.appendWith(updates, end);
    return resultOf(end);
  } catch (err) {
    // A lost race (the release published meanwhile, or streams that kept changing) answers as it is: 409.
    if (!updates.length || !(err instanceof DomainError)) throw err;
    if (err instanceof AlreadyPublished || err instanceof VersionConflict) throw err;
    // The items refused when written (changed since the checks): still nothing of them is published.
    const failed = endOf(
      decidePublish({ type: 'FailAtOnce', data: { ...log.at(), by: log.by, reason: err.code } }, state),
    );
    await log.appendWith([], failed);
    return resultOf(failed);
  }
}

/** One item of a one-by-one publish: its update and its outcome in one append; the release's state after it. */
async function publishItem(log: PublishLog, state: ReleaseState, p: Prepared, recorded: ReleaseItemPublished) {
  if (recorded.data.outcome.outcome !== 'published' || !p.command) return log.appendWith([], recorded);
  try {
    return await log.appendWith([p.command], recorded);
  } catch (err) {
    if (!(err instanceof DomainError)) throw err;
    // Refused when written (changed since the checks): failed, with the refusal's code as the reason.
    const verdict = { item: p.verdict.item, blocked: err.code };
    const [failed] = decidePublish({ type: 'RecordItem', data: { ...log.at(), verdict } }, state);
    return failed ? log.appendWith([], failed) : state;
  }
}

/**
 * best_effort, or a publish a crash cut off: each item with its outcome in one append per item, then the end, with
 * the outcomes the log holds. A publish cut off again stays `publishing`; the scheduler finds it and resumes it.
 */
async function publishOneByOne(log: PublishLog, started: ReleaseState, prepared: Prepared[]) {
  let state = started;
  for (const p of prepared) {
    const [recorded] = decidePublish({ type: 'RecordItem', data: { ...log.at(), verdict: p.verdict } }, state);
    if (recorded?.type === 'ReleaseItemPublished') state = await publishItem(log, state, p, recorded);
  }
  const end = endOf(decidePublish({ type: 'Finish', data: { ...log.at(), by: log.by } }, state));
  await log.append(end);
  return resultOf(end);
}

/**
 * Publishes a release (DESIGN §5): one fold of its stream, the checks of every item (as its author, and as the
 * caller of a manual publish), then the publish decider's steps, each appended through the release decider with
 * the item updates it stands for. The answer is the end's status and outcomes.
 */
export async function publishRelease(deps: AppDeps, input: PublishInput): Promise<PublishResult> {
  const { siteId, releaseId } = input;
  const { state, author } = await load(deps, siteId, releaseId);
  const checking = { siteId, by: input.metadata.actor.id, publisher: input.publisher };
  const prepared = await checkItems(deps, checking, publishTarget(state, releaseId), author);
  const log = publishLog(deps, input);
  const verdicts = prepared.map((p) => p.verdict);
  const [opened] = decidePublish({ type: 'Publish', data: { ...log.at(), by: log.by, verdicts } }, state);
  if (opened?.type === 'ReleasePublished') return publishAtOnce(log, state, prepared, opened);
  return publishOneByOne(log, opened ? await log.append(opened) : state, prepared);
}
