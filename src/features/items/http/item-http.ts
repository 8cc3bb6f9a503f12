import { readHeaders } from './item-headers.ts';
import { itemRead, listRead } from './item-read.params.ts';
import { RevisionPage, revisionPage } from './item-history.params.ts';
import { ItemListQuery, ItemReadQuery } from './item-query.schema.ts';
import {
  ItemBody,
  ItemListBody,
  ItemRecord,
  ItemsCreatedBody,
  ItemWriteBody,
  RevisionListMeta,
  RevisionRecord,
} from './items.schemas.ts';

/**
 * The item routes' HTTP vocabulary for routes of other slices that serve items (files): the query and answer
 * schemas, and the parsers that turn a request's query string and headers into the engine's parsed reads.
 */
export const itemHttp = {
  ItemBody,
  ItemListBody,
  ItemRecord,
  ItemsCreatedBody,
  ItemWriteBody,
  RevisionListMeta,
  RevisionRecord,
  RevisionPage,
  ItemListQuery,
  ItemReadQuery,
  revisionPage,
  listRead,
  itemRead,
  readHeaders,
} as const;
