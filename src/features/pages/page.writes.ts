import type { EventStore } from '../../kernel/es/event-store.ts';
import type { EventMetadata } from '../../kernel/es/event.ts';
import { handleCommands, type StreamCommand } from '../../kernel/es/handle-command.ts';
import { PageChangedMeanwhile, PageNotFound } from './page.errors.ts';
import { pageDecider, slugDecider, type CreatePage, type PageState, type UpdatePage } from './page.decider.ts';
import { pageSlugStream, pageStream } from '../../contracts/pages/page.events.ts';

type Cmd = StreamCommand<unknown, unknown>;
const page = (siteId: string, pageId: string, command: Cmd['command']): Cmd =>
  ({ decider: pageDecider, streamId: pageStream(siteId, pageId), command }) as Cmd;
const slug = (siteId: string, s: string, type: 'ClaimSlug' | 'ReleaseSlug', pageId: string, now: string): Cmd =>
  ({
    decider: slugDecider,
    streamId: pageSlugStream(siteId, s),
    command: { type, data: { slug: s, pageId, now } },
  }) as Cmd;

/**
 * The page's slug as the caller's change was decided against: a concurrent rename in between would leave the
 * wrong slug claimed or released, so it answers 409 and the client retries.
 */
const expecting = (current: string | null, cmd: { type: string; data: { pageId: string } }) => (s: PageState) => {
  if (!s.exists) throw new PageNotFound({ pageId: cmd.data.pageId });
  if (s.slug !== current) throw new PageChangedMeanwhile();
  return cmd;
};

/** Writes of the Page aggregate, each with its slug claims in one atomic append (unique slugs, race-free). */
export function pageWrites(store: EventStore) {
  const run = (commands: Cmd[], metadata: EventMetadata) => handleCommands(store, commands, { metadata });
  return {
    create: (siteId: string, cmd: CreatePage, metadata: EventMetadata) =>
      run(
        [slug(siteId, cmd.data.slug, 'ClaimSlug', cmd.data.pageId, cmd.data.now), page(siteId, cmd.data.pageId, cmd)],
        metadata,
      ),
    /** `currentSlug`: the slug the page has as read before the command (renames release it). */
    update: (siteId: string, currentSlug: string, cmd: UpdatePage, metadata: EventMetadata) => {
      const { pageId, now } = cmd.data;
      const renamed = cmd.data.slug !== undefined && cmd.data.slug !== currentSlug;
      return run(
        [
          page(siteId, pageId, expecting(currentSlug, cmd)),
          ...(renamed
            ? [
                slug(siteId, cmd.data.slug!, 'ClaimSlug', pageId, now),
                slug(siteId, currentSlug, 'ReleaseSlug', pageId, now),
              ]
            : []),
        ],
        metadata,
      );
    },
    remove: (
      siteId: string,
      currentSlug: string,
      pageId: string,
      at: { now: string; by: string },
      metadata: EventMetadata,
    ) =>
      run(
        [
          page(siteId, pageId, expecting(currentSlug, { type: 'DeletePage', data: { pageId, ...at } })),
          slug(siteId, currentSlug, 'ReleaseSlug', pageId, at.now),
        ],
        metadata,
      ),
  };
}
