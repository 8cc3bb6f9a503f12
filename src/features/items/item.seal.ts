import type { AppDeps } from '../../deps.ts';
import type { ItemValues } from '../../contracts/items/item.events.ts';
import { sealItemValues } from './encrypted-fields.ts';
import type { CollectionSchema } from './item.reads.ts';

/** Encrypts the values of encrypted fields before they go into a command (see encrypted-fields.ts). */
export const sealValues = (
  deps: Pick<AppDeps, 'config'>,
  siteId: string,
  s: CollectionSchema,
  id: string,
  values: ItemValues,
  path: string[] = [],
) => sealItemValues(deps.config.keyring, siteId, s.collection.name, id, s.fields, values, path);
