import type { AppDeps } from '../../deps.ts';
import { handleCommand } from '../../kernel/es/handle-command.ts';
import type { CommandContext } from '../../kernel/http/command-meta.ts';
import { siteDecider, type UpdateSite } from './site.decider.ts';
import { siteStream } from '../../contracts/sites/site.events.ts';

type Ctx = Pick<CommandContext, 'metadata' | 'expectedVersion'>;

/** Creates a site: the routes and the setup process run this one command, without HTTP. */
export function createSite(
  deps: Pick<AppDeps, 'store'>,
  ctx: Ctx,
  input: { siteId: string; name: string; createdBy: string; now: string },
) {
  const data = input;
  return handleCommand(deps.store, siteDecider, siteStream(input.siteId), { type: 'CreateSite', data }, ctx);
}

/** Renames a site or changes its settings; with If-Match, a stale version answers 409. */
export function updateSite(
  deps: Pick<AppDeps, 'store'>,
  ctx: Ctx & Pick<CommandContext, 'siteId' | 'now'>,
  input: Omit<UpdateSite['data'], 'siteId' | 'now'>,
) {
  const data = { siteId: ctx.siteId, ...input, now: ctx.now.toISOString() };
  return handleCommand(deps.store, siteDecider, siteStream(ctx.siteId), { type: 'UpdateSite', data }, ctx);
}

/**
 * Ends a site: every read model drops its rows (in the append for the inline ones), its id is never given again.
 * Only process managers call it (a preview's teardown); deleting it twice does nothing.
 */
export function deleteSite(
  deps: Pick<AppDeps, 'store'>,
  ctx: Pick<CommandContext, 'metadata'>,
  input: { siteId: string; reason: string; by: string; now: string },
) {
  return handleCommand(deps.store, siteDecider, siteStream(input.siteId), { type: 'DeleteSite', data: input }, ctx);
}
