import type { DomainEvent } from '../../kernel/es/event.ts';
import type { LayoutConfig } from './page.layout.ts';

export type { LayoutConfig };

export type PageStatus = 'draft' | 'published';

/** A page came into being on a site, with its slug (claimed in the same append) and layout. */
export type PageCreated = DomainEvent<
  'PageCreated',
  {
    pageId: string;
    slug: string;
    title: string;
    status: PageStatus;
    layoutConfig: LayoutConfig | null;
    at: string;
    by: string;
  }
>;
/**
 * Some of a page's values changed; `changes` holds only those. `slug` is the page's slug after the change, and
 * `previousSlug` the one it had when the change renamed it.
 */
export type PageUpdated = DomainEvent<
  'PageUpdated',
  {
    pageId: string;
    slug: string;
    changes: { slug?: string; title?: string; status?: PageStatus; layoutConfig?: LayoutConfig | null };
    previousSlug?: string;
    at: string;
    by: string;
  }
>;
/** A page was deleted; its slug (released in the same append) is free again. */
export type PageDeleted = DomainEvent<'PageDeleted', { pageId: string; slug: string; at: string; by: string }>;

/** A page took a slug of its site: no other page may hold it until it is released. */
export type PageSlugClaimed = DomainEvent<'PageSlugClaimed', { slug: string; pageId: string; at: string }>;
/** The page holding a slug let it go (renamed or deleted). */
export type PageSlugReleased = DomainEvent<'PageSlugReleased', { slug: string; pageId: string; at: string }>;

export type PageEvent = PageCreated | PageUpdated | PageDeleted;
export type PageSlugEvent = PageSlugClaimed | PageSlugReleased;
export const PAGE_EVENT_TYPES = ['PageCreated', 'PageUpdated', 'PageDeleted'] as const;

/** Every page is a stream of its own. */
export const pageStream = (siteId: string, pageId: string) => `${siteId}/page/${pageId}`;
/** One stream per slug of a site: the unique-slug guard, appended atomically with the page's own events. */
export const pageSlugStream = (siteId: string, slug: string) => `${siteId}/page-slug/${slug}`;
