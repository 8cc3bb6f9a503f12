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

/** The item engine as a port (`deps.items`, built once by the composition root) and the types of its reads. */
export { itemsApi, type ItemsApi } from './items.api.ts';
export type { CollectionSchema } from './item.reads.ts';
export type { ItemRead, ListRead } from './item.reader.ts';
export type { LiveQuery } from './item.live-reads.ts';
export type { ItemFrameData } from './item.frames.ts';
/** The item routes' schemas and query parsers, for routes of other slices that serve items (files, search). */
export { itemHttp } from './http/item-http.ts';
/** The re-encryption of stored values under the active key (the encryption slice's route runs it). */
export { envelopeMigration } from './envelope-migration.ts';

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
