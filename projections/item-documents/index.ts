/**
 * The public surface of the item-documents read model: what slices and other read models may use.
 */
export { AGGREGATES, type Aggregate, type AggregateFn } from './item-aggregate.ts';
export { itemDocumentsProjector } from './item-documents.projector.ts';
export { findItem, findItemsAnyState, listItems, type ItemQuery, type ItemRecord } from './item-documents.queries.ts';
export { expansionBudget, EXPANSION_LIMIT, type DeepSpec, type ExpansionBudget } from './item-expand.ts';
export { ExpansionLimit } from './item-query.errors.ts';
export { compileFilter, rootScope, type Filter, type Guard } from './item-filter.ts';
export {
  findDependents,
  referencedByPublished,
  referencesTo,
  referencingItems,
  type Dependent,
  type Reference,
} from './item-references.queries.ts';
export { translateRecord } from './item-translate.ts';
export {
  countSealedOutside,
  countSealedUnder,
  itemsSealedUnder,
  type EncryptedFields,
} from './item-envelopes.queries.ts';
export { candidateInside, itemInside, rowsInside, type RowCondition } from './item-rows.queries.ts';
export { holdLiveTargets, liveTargets } from './item-targets.queries.ts';
export { expandPaths, reachedCollections, type DropField } from './item-paths.ts';
export { itemsCreatedBy, type ItemCursor } from './item-authors.queries.ts';
export { collectionsWithItems, fieldsWithValues, valuesIn } from './item-presence.queries.ts';
