import type { AppDeps } from '../../deps.ts';
import type { EventMetadata } from '../../kernel/es/event.ts';
import { handleCommand } from '../../kernel/es/handle-command.ts';
import { siteDecider } from './site.decider.ts';
import { siteStream } from './site.events.ts';

/** Creates a site: the routes and the setup process run this one command, without HTTP. */
export function createSite(
  deps: Pick<AppDeps, 'store'>,
  input: { siteId: string; name: string; createdBy: string; now: string },
  metadata: EventMetadata,
) {
  return handleCommand(
    deps.store,
    siteDecider,
    siteStream(input.siteId),
    { type: 'CreateSite', data: input },
    {
      metadata,
    },
  );
}
