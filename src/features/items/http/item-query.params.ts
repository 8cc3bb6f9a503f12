import { DomainError } from '../../../kernel/http/errors.ts';
import { inspectJson } from '../../../kernel/http/input-guard.ts';
import { dict, isForbiddenKey } from '../../../kernel/safe/keys.ts';
import { parseAggregate, parseDeep, parseGroupBy, parseMeta, parseSearch } from './item-query.extras.ts';
import type { ItemQuery } from '../../../../projections/item-documents/item-documents.queries.ts';

type Raw = Record<string, string | string[] | undefined>;
const one = (v: string | string[] | undefined) => (Array.isArray(v) ? v[v.length - 1] : v);
const bad = (message: string, key: string) => new DomainError('VALIDATION_FAILED', message, { path: ['query', key] });

/**
 * Bracket-form values: true/false, null, clean numbers (no leading zeros) become typed; all else stays a string.
 * A number a double cannot hold exactly (9007199254740993) stays a string too, so that numeric fields still compare it
 * exactly.
 */
export function coerce(v: string): unknown {
  if (v === 'true') return true;
  if (v === 'false') return false;
  if (v === 'null') return null;
  const n = Number(v);
  const digits = v.includes('.') ? v.replace(/\.?0+$/, '') : v;
  if (/^-?(0|[1-9]\d*)(\.\d+)?$/.test(v) && String(n) === digits) return n;
  return v;
}

/** Deepest offset a list may start at (PostgreSQL's bigint holds more; no real page is further). */
export const MAX_OFFSET = 1_000_000_000;

const ARRAY_OPS = new Set(['_in', '_nin', '_between', '_has_any_keys', '_has_all_keys']);

/** `filter[a][_eq]=1&filter[_and][0][b][_gt]=2` → a nested filter; malformed keys are ignored (spec rule 5). */
export function bracketFilter(raw: Raw): Record<string, unknown> | null {
  let out: Record<string, unknown> | null = null;
  // Segments are the caller's words: nodes have no prototype, and prototype names are refused (also at the edge).
  for (const [key, value] of Object.entries(raw)) {
    if (!key.startsWith('filter[')) continue;
    const m = /^filter((?:\[[^[\]]+\])+)$/.exec(key);
    if (!m) continue;
    const segments = [...m[1]!.matchAll(/\[([^[\]]+)\]/g)].map((x) => x[1]!);
    if (segments.some(isForbiddenKey)) throw bad('filter keys must not name prototype members', key);
    const op = segments[segments.length - 1]!;
    if (!op.startsWith('_') || segments.length < 2) continue;
    const v = one(value) ?? '';
    const parsed = ARRAY_OPS.has(op) ? v.split(',').map(coerce) : coerce(v);
    out ??= dict();
    let node = out;
    for (const s of segments.slice(0, -1)) node = (node[s] ??= dict()) as Record<string, unknown>;
    node[op] = parsed;
  }
  return out;
}

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
    if (problem)
      throw new DomainError('VALIDATION_FAILED', problem.message, {
        path: problem.path,
        extensions: { reason: problem.reason },
      });
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
    fields: fields.length ? fields : null,
    meta: parseMeta(raw),
    search: parseSearch(raw),
    aggregate: parseAggregate(raw),
    groupBy: parseGroupBy(raw),
    deep: parseDeep(raw),
  };
}
