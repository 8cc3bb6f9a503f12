/** The public surface of the erasures read model: a site's erasures by page, and those left without a proof. */
export { erasuresProjector } from './erasures.projector.ts';
export { incompleteErasures, listErasures, type ErasureRow } from './erasures.queries.ts';
