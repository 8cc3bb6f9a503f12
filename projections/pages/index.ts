/**
 * The public surface of the pages read model: what slices and other read models may use.
 */
export { pagesProjector } from './pages.projector.ts';
export { findPage, findPageBySlug, listPages, type PageRecord } from './pages.queries.ts';
