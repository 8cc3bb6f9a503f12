import type { Feature } from '../../deps.ts';
import { itemDocumentsProjector } from '../../../projections/item-documents/item-documents.projector.ts';
import { itemRevisionsProjector } from '../../../projections/item-revisions/item-revisions.projector.ts';
import { itemVersionsProjector } from '../../../projections/item-versions/item-versions.projector.ts';
import { itemsRoutes } from './http/items.routes.ts';

export const itemsFeature: Feature = {
  name: 'items',
  projectors: [itemDocumentsProjector, itemRevisionsProjector, itemVersionsProjector],
  routes: itemsRoutes,
};
