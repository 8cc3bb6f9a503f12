import type { AppDeps } from '../../deps.ts';
import { handleCommand } from '../../kernel/es/handle-command.ts';
import type { CommandContext } from '../../kernel/http/command-meta.ts';
import { newId } from '../../kernel/ids.ts';
import { publishRelease } from './publish.process.ts';
import type { Caller } from './release-authority.ts';
import { releaseDecider, type ReleaseCommand } from './release.decider.ts';
import { PublishAtInPast } from './release.errors.ts';
import {
  releaseStream,
  type ReleaseAuthor,
  type ReleaseItem,
  type ReleaseMeta,
} from '../../contracts/releases/release.events.ts';

type Deps = Pick<AppDeps, 'store'>;

const send = (deps: Deps, ctx: CommandContext, releaseId: string, command: ReleaseCommand) =>
  handleCommand(deps.store, releaseDecider, releaseStream(ctx.siteId, releaseId), command, {
    metadata: ctx.metadata,
  });

/**
 * publishAt must not lie before the command's time (422); kept as UTC ISO text. Routes check it first, as they
 * always have; the commands check it again for callers without a route.
 */
export function publishAtFrom(ctx: CommandContext, publishAt: string | null | undefined): string | null | undefined {
  if (publishAt && new Date(publishAt).getTime() < ctx.now.getTime()) throw new PublishAtInPast();
  return publishAt ? new Date(publishAt).toISOString() : publishAt;
}

/** Creates a release (draft, or scheduled with a publishAt) authored by `author`; returns its id. */
export async function createRelease(
  deps: Deps,
  ctx: CommandContext,
  input: Omit<ReleaseMeta, 'publishAt'> & { publishAt?: string | null; items: ReleaseItem[]; author: ReleaseAuthor },
): Promise<string> {
  const releaseId = newId();
  const { author, items, ...meta } = input;
  const publishAt = publishAtFrom(ctx, meta.publishAt) ?? null;
  const data = { ...meta, publishAt, releaseId, items, by: ctx.actor.id, author, now: ctx.now.toISOString() };
  await send(deps, ctx, releaseId, { type: 'CreateRelease', data });
  return releaseId;
}

/** Changes a release's meta and adds or removes items (a published release refuses: RELEASE_IMMUTABLE). */
export async function updateRelease(
  deps: Deps,
  ctx: CommandContext,
  input: {
    releaseId: string;
    changes: Partial<ReleaseMeta>;
    add: ReleaseItem[];
    remove: { collection: string; itemId: string }[];
  },
): Promise<void> {
  const { releaseId, add, remove } = input;
  const changes = { ...input.changes };
  if (changes.publishAt !== undefined) changes.publishAt = publishAtFrom(ctx, changes.publishAt) ?? null;
  await send(deps, ctx, releaseId, {
    type: 'UpdateRelease',
    data: { releaseId, changes, add, remove, now: ctx.now.toISOString() },
  });
}

/** Deletes a release that is not being published. */
export async function deleteRelease(deps: Deps, ctx: CommandContext, releaseId: string): Promise<void> {
  await send(deps, ctx, releaseId, { type: 'DeleteRelease', data: { releaseId, now: ctx.now.toISOString() } });
}

/** Publishes now, checking every item with the rights of the presser and of the author (publish.process.ts). */
export function publishNow(deps: AppDeps, ctx: CommandContext, input: { releaseId: string; publisher: Caller }) {
  return publishRelease(deps, { siteId: ctx.siteId, metadata: ctx.metadata, ...input });
}
