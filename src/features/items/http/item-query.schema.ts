import { z } from 'zod';
import { MAX_OFFSET } from '../item-query.language.ts';

/*
 * The item query language as the routes' querystring schemas: the OpenAPI document lists every parameter from
 * here, and validation checks the plain ones (numbers, enumerations) before the handler. The rich ones (filter,
 * deep, aggregate, sort against the schema) are still parsed by `parseItemQuery` after the read check. The objects
 * are loose: the bracket forms (`filter[a][_eq]=`, `deep[rel][_limit]=`, `aggregate[count]=`) arrive as keys of
 * their own and must reach the parser.
 */

/** A JSON object in one parameter, or the same object in the bracket form (documented as a deepObject). */
const jsonOrBrackets = (what: string) =>
  z
    .union([z.string(), z.record(z.string(), z.unknown())])
    .optional()
    .describe(`${what}: JSON (\`${what.split(' ')[0]}={...}\`) or the bracket form, one parameter per leaf`);

const commaList = (what: string) => z.string().optional().describe(what);

/** `asOf`, `version` and `withDeleted` of a read (time travel, soft-deleted items for administrators). */
const readPast = {
  asOf: z.string().max(64).optional().describe('ISO 8601 date or time: the record(s) as they were then'),
  withDeleted: z.enum(['true', 'false']).optional().describe('true: soft-deleted items too (administrators)'),
};

const fields = commaList('Comma list of fields and relation paths (a.b, *, *.*)');
const deep = jsonOrBrackets('deep per relation (deep[rel][_filter|_sort|_limit|_offset|fields])');

/** GET /items/:collection and GET /files: the spec's common list parameters and the item list's own. */
export const ItemListQuery = z.looseObject({
  fields,
  filter: jsonOrBrackets('filter (filter[field][_op]=value; JSON wins when both are sent)'),
  search: z.string().optional().describe('Full-text words over the searchable fields'),
  sort: commaList("Comma list of fields; '-' prefix for descending"),
  limit: z.coerce.number().int().min(1).max(200).optional().describe('Page size, 1 to 200 (default 25)'),
  offset: z.coerce.number().int().min(0).max(MAX_OFFSET).optional().describe('Rows to skip'),
  page: z.coerce.number().int().min(1).optional().describe('1-based page: offset = (page - 1) × limit'),
  after: z.string().max(255).optional().describe('Keyset paging: the page starts after this item id'),
  meta: commaList('total_count (default), filter_count, * or none'),
  aggregate: jsonOrBrackets('aggregate (aggregate[count]=*, aggregate[sum]=price)'),
  groupBy: commaList('Comma list of fields to group aggregates by'),
  deep,
  ...readPast,
});

/** GET /items/:collection/:id and GET /files/:id: which fields, and the record as it was (asOf or version). */
export const ItemReadQuery = z.looseObject({
  fields,
  deep,
  version: z.coerce.number().int().min(1).optional().describe('The record as of its n-th event'),
  ...readPast,
});
