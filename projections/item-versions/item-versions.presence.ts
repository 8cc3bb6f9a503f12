import type { Db } from '../../src/kernel/db/database.ts';
import { valuesIn } from '../item-documents/index.ts';

/** Of the given `[collection, field]` pairs, those with a value in some named version (a draft holds data too). */
export const versionFieldsWithValues = (db: Db, siteId: string, pairs: readonly (readonly [string, string])[]) =>
  valuesIn(db, 'item_versions', siteId, pairs);
