import type { Feature } from '../../deps.ts';
import { itemDocumentsProjector } from '../../../projections/item-documents/index.ts';
import { itemRevisionsProjector } from '../../../projections/item-revisions/index.ts';
import { itemVersionsProjector } from '../../../projections/item-versions/index.ts';
import { itemsRoutes } from './http/items.routes.ts';
import { streamCommand, type StreamCommand } from '../../kernel/es/handle-command.ts';
import type { SiteSchema } from '../../../projections/schema/index.ts';
import { itemDecider } from './item.decider.ts';
import { itemStream, type ItemValues } from '../../contracts/items/item.events.ts';
import { itemsPersonalData } from './personal-data.ts';
import { itemFrames } from './item.frames.ts';

/** The write checks of the item routes (update rule, writable fields, row conditions, validation), for other slices. */
export { itemPermissions, readGuard } from './item.permissions.ts';
export type { CollectionSchema } from './item.reads.ts';
export { envelopeMigration } from './envelope-migration.ts';
/** The item engine for slices that serve a system collection (files) through routes of their own. */
export { itemGuard } from './item.guard.ts';
export { itemReader } from './item.reader.ts';
export { createItems, deleteItem, newItems, updateItem } from './item.commands.ts';
/** Relation values name items the writer may read (422 otherwise): for writes outside the item commands. */
export { checkReferences } from './item.references.ts';
export { present, presentRevision, withNullFields, writeMeta, writtenRecord } from './item.present.ts';
export { readItem } from './item.reads.ts';
export { readItemsAs } from './item.principal-reads.ts';
export { checkLiveQuery, readLive, type LiveQuery } from './item.live-reads.ts';
export type { ItemFrameData } from './item.frames.ts';
export {
  ItemBody,
  ItemListBody,
  ItemRecord,
  ItemsCreatedBody,
  ItemWriteBody,
  RevisionListMeta,
  RevisionRecord,
} from './http/items.schemas.ts';
export { RevisionPage, revisionPage } from './http/item-history.params.ts';
export { ItemListQuery, ItemReadQuery } from './http/item-query.schema.ts';

export const itemsFeature: Feature = {
  name: 'items',
  projectors: [itemDocumentsProjector, itemRevisionsProjector, itemVersionsProjector],
  routes: itemsRoutes,
  personalData: (deps) => itemsPersonalData(deps),
  frames: [itemFrames],
};

/**
 * The command that sets an item's values through the normal update path (validation and editorial gate in the
 * item decider), for process managers of other slices (release publishing) to append with their own events.
 */
export function itemUpdateCommand(
  siteId: string,
  schema: SiteSchema,
  target: { collection: string; id: string; changes: ItemValues },
  at: { now: string; by: string },
): StreamCommand {
  const fields = [...(schema.fields.get(target.collection)?.values() ?? [])];
  return streamCommand({
    decider: itemDecider,
    streamId: itemStream(siteId, target.collection, target.id),
    command: {
      type: 'UpdateItem',
      data: {
        collection: target.collection,
        id: target.id,
        fields,
        now: at.now,
        by: at.by,
        workflow: schema.collections.get(target.collection)?.workflow ?? null,
        changes: target.changes,
      },
    },
  });
}
