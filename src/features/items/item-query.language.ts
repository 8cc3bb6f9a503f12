import { InvalidQueryParameter, UnsafeQueryValue } from './item-query.errors.ts';
import { inspectJson } from '../../platform/http/input-guard.ts';
import { bracketFilter } from './item-query.brackets.ts';
import { parseAggregate, parseDeep, parseGroupBy, parseMeta, parseSearch } from './item-query.extras.ts';
import type { ItemQuery } from '../../../projections/item-documents/index.ts';

type Raw = Record<string, string | string[] | undefined>;
const one = (v: string | string[] | undefined) => (Array.isArray(v) ? v[v.length - 1] : v);
const bad = (message: string, key: string) => new InvalidQueryParameter({ key, message });

/** Deepest offset a list may start at (PostgreSQL's bigint holds more; no real page is further). */
export const MAX_OFFSET = 1_000_000_000;

/** The list parameters of GET /items/:collection. */
export function parseItemQuery(raw: Raw): Omit<ItemQuery, 'locale'> {
  let filter = bracketFilter(raw);
  const json = one(raw.filter);
  if (json !== undefined) {
    try {
      filter = JSON.parse(json) as Record<string, unknown>;
    } catch {
      throw bad('filter is not valid JSON', 'filter');
    }
    if (!filter || typeof filter !== 'object' || Array.isArray(filter))
      throw bad('filter must be a JSON object', 'filter');
    const problem = inspectJson(filter, ['query', 'filter']);
    if (problem) throw new UnsafeQueryValue({ path: problem.path, message: problem.message, reason: problem.reason });
  }
  const limit = one(raw.limit) === undefined ? 25 : Number(one(raw.limit));
  if (!Number.isInteger(limit) || limit < 1 || limit > 200)
    throw bad('limit must be an integer from 1 to 200', 'limit');
  const page = one(raw.page);
  const offsetRaw = one(raw.offset);
  let offset = offsetRaw === undefined ? 0 : Number(offsetRaw);
  if (!Number.isSafeInteger(offset) || offset < 0 || offset > MAX_OFFSET)
    throw bad(`offset must be an integer from 0 to ${MAX_OFFSET}`, 'offset');
  if (page !== undefined) {
    const p = Number(page);
    if (!Number.isSafeInteger(p) || p < 1 || (p - 1) * limit > MAX_OFFSET)
      throw bad(`page must be an integer from 1, reaching at most offset ${MAX_OFFSET}`, 'page');
    offset = (p - 1) * limit;
  }
  // Keyset pagination: the page starts right after the item with this id, in the list's own order.
  const after = one(raw.after);
  if (after !== undefined) {
    if (!/^[A-Za-z0-9_-]{1,255}$/.test(after)) throw bad('after must be the id of an item of the list', 'after');
    if (offsetRaw !== undefined || page !== undefined)
      throw bad('after cannot be combined with offset or page', 'after');
  }
  const list = (k: string) =>
    (one(raw[k]) ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
  const fields = list('fields');
  return {
    filter,
    sort: list('sort'),
    limit,
    offset,
    ...(after !== undefined ? { after } : {}),
    fields: fields.length ? fields : null,
    meta: parseMeta(raw),
    search: parseSearch(raw),
    aggregate: parseAggregate(raw),
    groupBy: parseGroupBy(raw),
    deep: parseDeep(raw),
  };
}
