import { assertNever, type Decider } from '../../kernel/es/decider.ts';
import { InvalidSlug, PageExists, PageNotFound, SlugTaken } from './page.errors.ts';
import type { LayoutConfig } from '../../contracts/pages/page.layout.ts';
import { SLUG_MAX, SLUG_PATTERN } from '../../contracts/pages/page.layout.ts';
import type { PageEvent, PageSlugEvent, PageStatus } from '../../contracts/pages/page.events.ts';

export type PageState =
  | { exists: false; deleted: boolean }
  | { exists: true; slug: string; title: string; status: PageStatus; layoutConfig: LayoutConfig | null };

type At = { pageId: string; now: string; by: string };
/** Create a page. */
export type CreatePage = {
  type: 'CreatePage';
  data: At & { slug: string; title: string; status: PageStatus; layoutConfig: LayoutConfig | null };
};
/** Change some of a page's values. */
export type UpdatePage = {
  type: 'UpdatePage';
  data: At & { slug?: string; title?: string; status?: PageStatus; layoutConfig?: LayoutConfig | null };
};
/** Delete a page. */
export type DeletePage = { type: 'DeletePage'; data: At };
export type PageCommand = CreatePage | UpdatePage | DeletePage;

function checkSlug(slug: string): void {
  if (slug.length > SLUG_MAX || !SLUG_PATTERN.test(slug)) throw new InvalidSlug({ slug });
}

/** The keys of an update whose values differ from the page's. */
function changesOf(cmd: UpdatePage['data'], s: Extract<PageState, { exists: true }>) {
  const changes: Extract<PageEvent, { type: 'PageUpdated' }>['data']['changes'] = {};
  if (cmd.slug !== undefined && cmd.slug !== s.slug) changes.slug = cmd.slug;
  if (cmd.title !== undefined && cmd.title !== s.title) changes.title = cmd.title;
  if (cmd.status !== undefined && cmd.status !== s.status) changes.status = cmd.status;
  if (cmd.layoutConfig !== undefined && JSON.stringify(cmd.layoutConfig) !== JSON.stringify(s.layoutConfig))
    changes.layoutConfig = cmd.layoutConfig;
  return changes;
}

export const pageDecider: Decider<PageState, PageCommand, PageEvent> = {
  initialState: () => ({ exists: false, deleted: false }),
  evolve: (s, e) => {
    switch (e.type) {
      case 'PageCreated': {
        const { slug, title, status, layoutConfig } = e.data;
        return { exists: true, slug, title, status, layoutConfig };
      }
      case 'PageUpdated':
        return s.exists ? { ...s, ...e.data.changes } : s;
      case 'PageDeleted':
        return { exists: false, deleted: true };
      default:
        return assertNever(e);
    }
  },
  decide: (cmd, s) => {
    const { pageId, now: at, by } = cmd.data;
    switch (cmd.type) {
      case 'CreatePage': {
        if (s.exists || s.deleted) throw new PageExists({ pageId });
        checkSlug(cmd.data.slug);
        const { slug, title, status, layoutConfig } = cmd.data;
        return [{ type: 'PageCreated', data: { pageId, slug, title, status, layoutConfig, at, by } }];
      }
      case 'UpdatePage': {
        if (!s.exists) throw new PageNotFound({ pageId });
        if (cmd.data.slug !== undefined) checkSlug(cmd.data.slug);
        const changes = changesOf(cmd.data, s);
        if (Object.keys(changes).length === 0) return [];
        const renamed = changes.slug !== undefined ? { previousSlug: s.slug } : {};
        const slug = changes.slug ?? s.slug;
        return [{ type: 'PageUpdated', data: { pageId, slug, changes, ...renamed, at, by } }];
      }
      case 'DeletePage':
        if (!s.exists) throw new PageNotFound({ pageId });
        return [{ type: 'PageDeleted', data: { pageId, slug: s.slug, at, by } }];
      default:
        return assertNever(cmd);
    }
  },
};

export type SlugState = { owner: string | null };
/** Take a slug for a page: 409 CONFLICT while another page holds it. */
export type ClaimSlug = { type: 'ClaimSlug'; data: { slug: string; pageId: string; now: string } };
/** Let a slug go; a no-op unless the page holds it. */
export type ReleaseSlug = { type: 'ReleaseSlug'; data: { slug: string; pageId: string; now: string } };
export type SlugCommand = ClaimSlug | ReleaseSlug;

/** The unique-slug guard: one stream per slug of a site, written in the same append as the page. */
export const slugDecider: Decider<SlugState, SlugCommand, PageSlugEvent> = {
  initialState: () => ({ owner: null }),
  evolve: (s, e) => {
    switch (e.type) {
      case 'PageSlugClaimed':
        return { owner: e.data.pageId };
      case 'PageSlugReleased':
        return s.owner === e.data.pageId ? { owner: null } : s;
      default:
        return assertNever(e);
    }
  },
  decide: (cmd, s) => {
    const { slug, pageId, now: at } = cmd.data;
    switch (cmd.type) {
      case 'ClaimSlug':
        if (s.owner === pageId) return [];
        if (s.owner !== null) throw new SlugTaken({ slug });
        return [{ type: 'PageSlugClaimed', data: { slug, pageId, at } }];
      case 'ReleaseSlug':
        return s.owner === pageId ? [{ type: 'PageSlugReleased', data: { slug, pageId, at } }] : [];
      default:
        return assertNever(cmd);
    }
  },
};
