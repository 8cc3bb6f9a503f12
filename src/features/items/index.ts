import type { Feature } from '../../deps.ts';
import { itemDocumentsProjector } from '../../../projections/item-documents/item-documents.projector.ts';
import { itemsRoutes } from './http/items.routes.ts';

export const itemsFeature: Feature = { name: 'items', projectors: [itemDocumentsProjector], routes: itemsRoutes };
