import {
  createHashHistory,
  createRootRoute,
  createRoute,
  createRouter,
  lazyRouteComponent,
  Outlet,
} from '@tanstack/react-router';
import { Loader } from '@mantine/core';
import { t } from './i18n/en.ts';
import { Home, SiteLayout } from './screens/site-layout.tsx';
import { SitePicker } from './screens/site-picker.tsx';

// Hash history: the admin path is known only at run time (the shell's <base href>), and every studio address is
// the shell's own URL plus a fragment, so a reload anywhere is answered by the same shell.
const rootRoute = createRootRoute({ component: Outlet });

const indexRoute = createRoute({ getParentRoute: () => rootRoute, path: '/', component: SitePicker });

export const siteRoute = createRoute({ getParentRoute: () => rootRoute, path: '/s/$site', component: SiteLayout });

const homeRoute = createRoute({ getParentRoute: () => siteRoute, path: '/', component: Home });

// Screens load with their route (import()): the first screen's JavaScript carries only what it shows.
export const collectionsRoute = createRoute({
  getParentRoute: () => siteRoute,
  path: '/collections',
  component: lazyRouteComponent(() => import('./screens/collections.tsx'), 'Collections'),
});

export const itemsRoute = createRoute({
  getParentRoute: () => siteRoute,
  path: '/collections/$collection',
  validateSearch: (search: Record<string, unknown>): { page: number } => {
    const page = Number(search.page);
    return { page: Number.isSafeInteger(page) && page >= 1 ? page : 1 };
  },
  component: lazyRouteComponent(() => import('./screens/items.tsx'), 'Items'),
});

// The history screens: one item (values now or as of a moment, revisions, named versions, audit trail), and a
// collection's list as of a moment.
export const itemViewRoute = createRoute({
  getParentRoute: () => siteRoute,
  path: '/items/$collection/$id',
  validateSearch: (search: Record<string, unknown>): { tab: 'values' | 'history' | 'versions' | 'audit' } => {
    const tab = search.tab;
    return { tab: tab === 'history' || tab === 'versions' || tab === 'audit' ? tab : 'values' };
  },
  component: lazyRouteComponent(() => import('./screens/item-view.tsx'), 'ItemView'),
});

export const itemsAsOfRoute = createRoute({
  getParentRoute: () => siteRoute,
  path: '/collections/$collection/as-of',
  validateSearch: (search: Record<string, unknown>): { at: string; page: number } => {
    const page = Number(search.page);
    return {
      at: typeof search.at === 'string' ? search.at.slice(0, 32) : '',
      page: Number.isSafeInteger(page) && page >= 1 ? page : 1,
    };
  },
  component: lazyRouteComponent(() => import('./screens/items-as-of.tsx'), 'ItemsAsOf'),
});

// Releases (compose from items, schedule, publish, outcomes) and pages (slug, title, layout JSON, preview).
export const releasesRoute = createRoute({
  getParentRoute: () => siteRoute,
  path: '/releases',
  component: lazyRouteComponent(() => import('./screens/releases.tsx'), 'Releases'),
});

export const releaseRoute = createRoute({
  getParentRoute: () => siteRoute,
  path: '/releases/$id',
  component: lazyRouteComponent(() => import('./screens/releases.tsx'), 'ReleaseDetail'),
});

export const pagesRoute = createRoute({
  getParentRoute: () => siteRoute,
  path: '/pages',
  component: lazyRouteComponent(() => import('./screens/pages.tsx'), 'Pages'),
});

export const newPageRoute = createRoute({
  getParentRoute: () => siteRoute,
  path: '/pages/new',
  component: lazyRouteComponent(() => import('./screens/pages.tsx'), 'NewPage'),
});

export const pageRoute = createRoute({
  getParentRoute: () => siteRoute,
  path: '/pages/$id',
  component: lazyRouteComponent(() => import('./screens/pages.tsx'), 'EditPage'),
});

// The item editor: a new item (a duplicate when `from` names the original) and an item's form.
export const newItemRoute = createRoute({
  getParentRoute: () => siteRoute,
  path: '/collections/$collection/new',
  validateSearch: (search: Record<string, unknown>): { from?: string } =>
    typeof search.from === 'string' && search.from !== '' ? { from: search.from.slice(0, 200) } : {},
  component: lazyRouteComponent(() => import('./screens/item-editor.tsx'), 'NewItem'),
});

export const editItemRoute = createRoute({
  getParentRoute: () => siteRoute,
  path: '/collections/$collection/items/$id',
  component: lazyRouteComponent(() => import('./screens/item-editor.tsx'), 'EditItem'),
});

// The caller's notifications on the site (live over the realtime stream, which the site's frame holds open).
export const inboxRoute = createRoute({
  getParentRoute: () => siteRoute,
  path: '/inbox',
  component: lazyRouteComponent(() => import('./screens/inbox.tsx'), 'Inbox'),
});

const routeTree = rootRoute.addChildren([
  indexRoute,
  siteRoute.addChildren([
    homeRoute,
    releasesRoute,
    releaseRoute,
    pagesRoute,
    newPageRoute,
    pageRoute,
    collectionsRoute,
    itemsRoute,
    itemViewRoute,
    itemsAsOfRoute,
    newItemRoute,
    editItemRoute,
    inboxRoute,
  ]),
]);

// A screen whose code or data is still on its way shows a loader (soon: a slow network must not look frozen).
function RoutePending() {
  return <Loader aria-label={t('app.loading')} />;
}

export const router = createRouter({
  routeTree,
  history: createHashHistory(),
  defaultPendingComponent: RoutePending,
  defaultPendingMs: 150,
  defaultPendingMinMs: 0,
});

declare module '@tanstack/react-router' {
  interface Register {
    router: typeof router;
  }
}
