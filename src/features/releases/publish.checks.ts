import type { AppDeps } from '../../deps.ts';
import type { StreamCommand } from '../../kernel/es/handle-command.ts';
import { DomainError } from '../../kernel/http/errors.ts';
import { readAsSite } from '../../kernel/tenancy/site.ts';
import { findItemsAnyState } from '../../../projections/item-documents/index.ts';
import { type SiteSchema } from '../../../projections/schema/index.ts';
import { itemUpdateCommand } from '../items/index.ts';
import type { Verdict } from './publish.decider.ts';
import {
  authorNow,
  callerFor,
  pinnedValues,
  refusal,
  releaseChanges,
  releaseItemChecks,
  type Caller,
} from './release-authority.ts';
import { ReleaseItemNotFound } from './release.errors.ts';
import { itemKey, type ReleaseAuthor, type ReleaseItem } from '../../contracts/releases/release.events.ts';

/** Who publishes: the site, the actor the item updates are recorded as, and the caller of a manual publish. */
export interface Checking {
  siteId: string;
  by: string;
  publisher: Caller | null;
}

/** An item ready to publish: its verdict, and the update it makes (none for an item gone from a resumed publish). */
export type Prepared = { verdict: Verdict; command: StreamCommand | null };

/**
 * The checks before a publish writes anything: every item's verdict and update, checked with the rights of the
 * release's author as they are now (and of the caller of a manual publish). Nothing is written.
 */
export async function checkItems(
  deps: AppDeps,
  input: Checking,
  target: { items: ReleaseItem[]; resuming: boolean },
  author: ReleaseAuthor | null,
): Promise<Prepared[]> {
  const schema = await deps.schemas.read(input.siteId);
  const callers = await callersOf(deps, input, author);
  return prepare(deps, input, target.items, schema, { resuming: target.resuming, callers });
}

/**
 * Whose rights every item is checked with: the author's as they are now (through the scheduler), and for a manual
 * publish the caller's too (once, when the caller is the author). Null: the author has no standing on the site.
 */
async function callersOf(deps: AppDeps, input: Checking, author: ReleaseAuthor | null): Promise<Caller[] | null> {
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
  input: Checking,
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
      prepared.push({ verdict: { item, blocked: ReleaseItemNotFound.code }, command: null });
      continue;
    }
    const changes = releaseChanges(schema, item, doc.data, await pinnedValues(deps, siteId, item, { strict: true }));
    const target = { collection: item.collection, id: item.itemId, changes };
    const command = itemUpdateCommand(siteId, schema, target, { now, by: input.by });
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
    prepared.push({ verdict: { item, blocked }, command });
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
