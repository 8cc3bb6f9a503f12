import type { AppDeps } from '../../deps.ts';
import { handleCommand } from '../../kernel/es/handle-command.ts';
import type { CommandContext } from '../../kernel/http/command-meta.ts';
import { siteDecider } from './site.decider.ts';
import { siteStream } from './site.events.ts';

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
