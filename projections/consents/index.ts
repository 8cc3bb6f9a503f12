/**
 * The public surface of the consents read model: current consents and restrictions of processing per site.
 */
export { consentsProjector } from './consents.projector.ts';
export { listConsents, restrictedAmong, type ConsentRow } from './consents.queries.ts';
