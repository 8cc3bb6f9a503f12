import type { AppDeps } from '../../deps.ts';
import { aggregateStream } from '../../kernel/es/aggregate-stream.ts';
import type { EventMetadata } from '../../kernel/es/event.ts';
import { handleCommand, handleCommands, streamCommand, type StreamCommand } from '../../kernel/es/handle-command.ts';
import { DomainError } from '../../kernel/http/errors.ts';
import { AlreadyPublished, EmptyRelease, ReleaseItemNotFound, ReleaseNotFound } from './release.errors.ts';
import { readAsSite } from '../../kernel/tenancy/site.ts';
import { findItemsAnyState } from '../../../projections/item-documents/index.ts';
import { type SiteSchema } from '../../../projections/item-documents/index.ts';
import { itemUpdateCommand } from '../items/index.ts';
import {
  authorNow,
  callerFor,
  pinnedValues,
  refusal,
  releaseChanges,
  releaseItemChecks,
  type Caller,
} from './release-authority.ts';
import { releaseDecider, type ReleaseCommand, type ReleaseState } from './release.decider.ts';
import {
  itemKey,
  releaseStream,
  type Outcome,
  type ReleaseAuthor,
  type ReleaseCreated,
  type ReleaseEvent,
  type ReleaseItem,
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

type Prepared = { item: ReleaseItem; command: StreamCommand | null; blocked: string | null };

async function load(deps: AppDeps, siteId: string, releaseId: string) {
  let author: ReleaseAuthor | null = null;
  const { state: s } = await aggregateStream<ReleaseState, ReleaseEvent>(
    deps.store,
    releaseStream(siteId, releaseId),
    (state, e, stored) => {
      if (e.type === 'ReleaseCreated') author = authorOf(e.data, stored.metadata.actor.type);
      return releaseDecider.evolve(state, e);
    },
    () => releaseDecider.initialState(),
  );
  if (!s.exists || s.deleted) throw new ReleaseNotFound({ releaseId });
  // Set inside the fold, which the compiler does not follow: the annotation keeps both possibilities.
  return { ...s, author: author as ReleaseAuthor | null };
}

/** The release's author; for releases created before it was recorded, `by` and the creating event's actor. */
function authorOf(data: ReleaseCreated['data'], actorType: string): ReleaseAuthor | null {
  if (data.author) return data.author;
  return actorType === 'user' || actorType === 'apiKey' ? { type: actorType, id: data.by, amr: [] } : null;
}

/**
 * Whose rights every item is checked with: the author's as they are now (through the scheduler), and for a manual
 * publish the caller's too (once, when the caller is the author). Null: the author has no standing on the site.
 */
async function callersOf(deps: AppDeps, input: PublishInput, author: ReleaseAuthor | null): Promise<Caller[] | null> {
  const { publisher, siteId } = input;
  if (!author) return null;
  if (publisher?.actor && publisher.actor.type === author.type && publisher.actor.id === author.id) return [publisher];
  const actor = await authorNow(deps, siteId, author);
  if (!actor) return null;
  return publisher ? [publisher, callerFor(actor, siteId)] : [callerFor(actor, siteId)];
}

/**
 * Every release item, ready: the update it makes (the pinned revision's changed values or none, with the target
 * status in the workflow's field), and what blocks it: deleted (ITEM_DELETED), the checks of PATCH as the author
 * and the publisher (PERMISSION_DENIED, or VALIDATION_FAILED for a rule's validation), or whatever the item's own
 * decider refuses, tried against the item's current values (EDITORIAL_GATE_REQUIRED, VALIDATION_FAILED). A
 * missing item or revision fails the whole request.
 */
async function prepare(
  deps: AppDeps,
  input: PublishInput,
  items: ReleaseItem[],
  schema: SiteSchema,
  release: { resuming: boolean; callers: Caller[] | null },
) {
  const { siteId } = input;
  const docs = await readAsSite(deps.db, siteId, (trx) =>
    findItemsAnyState(
      trx,
      siteId,
      items.map((i) => ({ collection: i.collection, id: i.itemId })),
    ),
  );
  const check = releaseItemChecks(deps);
  const now = deps.clock.now().toISOString();
  const prepared: Prepared[] = [];
  for (const item of items) {
    const doc = docs.get(itemKey(item));
    if (!doc) {
      if (!release.resuming) throw new ReleaseItemNotFound(item);
      prepared.push({ item, command: null, blocked: 'ITEM_NOT_FOUND' });
      continue;
    }
    const changes = releaseChanges(schema, item, doc.data, await pinnedValues(deps, siteId, item, { strict: true }));
    const target = { collection: item.collection, id: item.itemId, changes };
    const command = itemUpdateCommand(siteId, schema, target, { now, by: input.metadata.actor.id });
    let blocked: string | null = doc.deleted ? 'ITEM_DELETED' : null;
    blocked ??= await refused(release.callers, (caller) =>
      check(caller, schema, { ...target, current: doc.data }, { validation: true }),
    );
    if (!blocked) {
      try {
        command.decider.decide(command.command, { status: 'live', values: doc.data });
      } catch (err) {
        if (!(err instanceof DomainError)) throw err;
        blocked = err.code;
      }
    }
    prepared.push({ item, command, blocked });
  }
  return prepared;
}

/** The reason the first caller is refused for (null: none is); a release without callers is refused outright. */
async function refused(callers: Caller[] | null, check: (caller: Caller) => Promise<void>): Promise<string | null> {
  if (!callers) return 'PERMISSION_DENIED';
  for (const caller of callers) {
    try {
      await check(caller);
    } catch (err) {
      if (!(err instanceof DomainError)) throw err;
      return refusal(err);
    }
  }
  return null;
}

const releaseCommand = (siteId: string, releaseId: string, command: ReleaseCommand): StreamCommand =>
  streamCommand({ decider: releaseDecider, streamId: releaseStream(siteId, releaseId), command });
const outcome = (i: ReleaseItem, o: Outcome['outcome'], reason?: string | null): Outcome => ({
  collection: i.collection,
  itemId: i.itemId,
  outcome: o,
  ...(reason ? { reason } : {}),
});

/**
 * Publishes a release (DESIGN §5). all_or_nothing: a pre-flight over every item; if any is blocked nothing is
 * written but the failed outcome; else every item update and the release's end are ONE atomic append, so a crash
 * leaves all of it or none. best_effort: a start event, then each item with its outcome in one append per item,
 * then the end; a publish cut off by a crash is found by the scheduler (the release stays `publishing`) and resumed
 * from the outcomes already in the log.
 */
export async function publishRelease(
  deps: AppDeps,
  input: PublishInput,
): Promise<{ status: string; outcomes: Outcome[] }> {
  const { siteId, releaseId, metadata } = input;
  const opts = { metadata };
  const now = () => deps.clock.now().toISOString();
  const r = await load(deps, siteId, releaseId);
  if (r.status === 'published') throw new AlreadyPublished({ releaseId });
  const items = r.publishing?.items ?? r.items;
  if (!items.length) throw new EmptyRelease({ releaseId });
  const schema = await deps.schemas.read(siteId);
  const callers = await callersOf(deps, input, r.author);
  const prepared = await prepare(deps, input, items, schema, { resuming: r.publishing !== null, callers });
  const by = metadata.actor.id;

  if (r.atomicityMode === 'all_or_nothing' && !r.publishing) {
    const blocked = prepared.some((p) => p.blocked);
    const finish = (outcomes: Outcome[]) =>
      releaseCommand(siteId, releaseId, { type: 'FinishPublish', data: { releaseId, outcomes, by, now: now() } });
    if (!blocked) {
      const outcomes = prepared.map((p) => outcome(p.item, 'published'));
      try {
        await handleCommands(deps.store, [...prepared.map((p) => p.command!), finish(outcomes)], opts);
        return { status: 'published', outcomes };
      } catch (err) {
        // Changed since the pre-flight (another writer): still nothing of it is published.
        if (!(err instanceof DomainError) || ['ALREADY_PUBLISHED', 'CONFLICT'].includes(err.code)) throw err;
        const failed = prepared.map((p) => outcome(p.item, 'failed', err.code));
        await handleCommands(deps.store, [finish(failed)], opts);
        return { status: 'failed', outcomes: failed };
      }
    }
    const outcomes = prepared.map((p) =>
      p.blocked ? outcome(p.item, 'failed', p.blocked) : outcome(p.item, 'skipped'),
    );
    await handleCommands(deps.store, [finish(outcomes)], opts);
    return { status: 'failed', outcomes };
  }

  // best_effort (or resuming a cut-off publish)
  let state: ReleaseState = r;
  if (!r.publishing)
    state = (
      await handleCommand(
        deps.store,
        releaseDecider,
        releaseStream(siteId, releaseId),
        {
          type: 'StartPublish',
          data: { releaseId, by, now: now() },
        },
        opts,
      )
    ).state;
  const done = new Set((state.exists && state.publishing ? state.publishing.outcomes : []).map(itemKey));
  for (const p of prepared) {
    if (done.has(itemKey(p.item))) continue;
    const record = (o: Outcome) =>
      releaseCommand(siteId, releaseId, { type: 'RecordOutcome', data: { releaseId, outcome: o, now: now() } });
    if (p.blocked || !p.command) {
      await handleCommands(deps.store, [record(outcome(p.item, 'failed', p.blocked))], opts);
      continue;
    }
    try {
      await handleCommands(deps.store, [p.command, record(outcome(p.item, 'published'))], opts);
    } catch (err) {
      if (!(err instanceof DomainError)) throw err;
      await handleCommands(deps.store, [record(outcome(p.item, 'failed', err.code))], opts);
    }
  }
  const after = await load(deps, siteId, releaseId);
  const outcomes = after.publishing?.outcomes ?? [];
  const res = await handleCommand(
    deps.store,
    releaseDecider,
    releaseStream(siteId, releaseId),
    {
      type: 'FinishPublish',
      data: { releaseId, outcomes, by, now: now() },
    },
    opts,
  );
  return { status: res.state.exists ? res.state.status : 'failed', outcomes };
}
