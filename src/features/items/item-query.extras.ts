import { InvalidQueryParameter, UnsafeQueryValue } from './item-query.errors.ts';
import { inspectJson } from '../../platform/http/input-guard.ts';
import { dict, dictFrom, isForbiddenKey } from '../../kernel/safe/keys.ts';
import { AGGREGATES, type Aggregate, type AggregateFn } from '../../../projections/item-documents/index.ts';
import type { DeepSpec } from '../../../projections/item-documents/index.ts';
import { bracketFilter, coerce } from './item-query.brackets.ts';

type Raw = Record<string, string | string[] | undefined>;
const one = (v: string | string[] | undefined) => (Array.isArray(v) ? v[v.length - 1] : v);
const bad = (message: string, key: string) => new InvalidQueryParameter({ key, message });
const commaList = (v: string | undefined) =>
  (v ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);

/** `meta=total_count` (default), `filter_count`, both (comma list or `*`), or `none`. */
export function parseMeta(raw: Raw): { total: boolean; filterCount: boolean } {
  const parts = commaList(one(raw.meta) ?? 'total_count');
  const known = ['total_count', 'filter_count', '*', 'none'];
  const unknown = parts.find((p) => !known.includes(p));
  if (unknown) throw bad(`meta takes total_count, filter_count, * or none, not ${unknown}`, 'meta');
  if (parts.includes('none')) return { total: false, filterCount: false };
  return {
    total: parts.includes('total_count') || parts.includes('*'),
    filterCount: parts.includes('filter_count') || parts.includes('*'),
  };
}

/** `aggregate[count]=*&aggregate[sum]=price,qty` (or the JSON form `aggregate={"sum":["price"]}`). */
export function parseAggregate(raw: Raw): Aggregate | null {
  let out: Aggregate | null = null;
  const add = (fn: string, fields: string[], key: string) => {
    if (!(AGGREGATES as readonly string[]).includes(fn))
      throw bad(`unknown aggregate function ${fn}; use ${AGGREGATES.join(', ')}`, key);
    if (!fields.length) throw bad(`${key} needs a field or *`, key);
    if (fields.some(isForbiddenKey))
      throw new UnsafeQueryValue({
        path: ['query', key],
        message: 'aggregate fields must not name prototype members',
        reason: 'forbidden_key',
      });
    out ??= {};
    out[fn as AggregateFn] = [...(out[fn as AggregateFn] ?? []), ...fields];
  };
  for (const [key, value] of Object.entries(raw)) {
    const m = /^aggregate\[([A-Za-z]+)\]$/.exec(key);
    if (m) add(m[1]!, commaList(one(value)), key);
  }
  const json = one(raw.aggregate);
  if (json !== undefined) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(json);
    } catch {
      throw bad('aggregate is not valid JSON', 'aggregate');
    }
    if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed))
      throw bad('aggregate must be a JSON object', 'aggregate');
    for (const [fn, v] of Object.entries(parsed))
      add(fn, Array.isArray(v) ? v.map(String) : commaList(String(v)), 'aggregate');
  }
  return out;
}

export const parseGroupBy = (raw: Raw): string[] => commaList(one(raw.groupBy));

/** `search=term`: at most 200 characters. */
export function parseSearch(raw: Raw): string | null {
  const s = one(raw.search)?.trim();
  if (!s) return null;
  if (s.length > 200) throw bad('search takes at most 200 characters', 'search');
  return s;
}

const DEEP_KEYS = new Set(['_filter', '_sort', '_limit', '_offset', 'fields', '_fields']);

/**
 * `deep[comments][_filter][status][_eq]=published&deep[comments][_sort]=-created_at&deep[comments][_limit]=5`
 * (or `deep={…}` in JSON): how the items of each expanded relation are read; nests for relations of relations.
 */
export function parseDeep(raw: Raw): Map<string, DeepSpec> {
  const tree = dict<unknown>();
  for (const [key, value] of Object.entries(raw)) {
    const m = /^deep((?:\[[^[\]]+\])+)$/.exec(key);
    if (!m) continue;
    const segments = [...m[1]!.matchAll(/\[([^[\]]+)\]/g)].map((x) => x[1]!);
    if (segments.some(isForbiddenKey)) throw bad('deep keys must not name prototype members', key);
    const at = segments.findIndex((s) => DEEP_KEYS.has(s));
    if (at < 1) continue;
    let node = tree;
    for (const s of segments.slice(0, at)) node = (node[s] ??= dict()) as Record<string, unknown>;
    const param = segments[at]!;
    if (param === '_filter') {
      const f = bracketFilter({ [`filter[${segments.slice(at + 1).join('][')}]`]: value });
      node._filter = mergeDeep((node._filter as Record<string, unknown>) ?? {}, f ?? {});
    } else node[param] = one(value);
  }
  const json = one(raw.deep);
  if (json !== undefined) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(json);
    } catch {
      throw bad('deep must be a JSON object', 'deep');
    }
    if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw bad('deep must be a JSON object', 'deep');
    const problem = inspectJson(parsed, ['query', 'deep']);
    if (problem) throw new UnsafeQueryValue({ path: problem.path, message: problem.message, reason: problem.reason });
    for (const [k, v] of Object.entries(parsed)) tree[k] = v;
  }
  return toSpecs(tree, 'deep');
}

function mergeDeep(a: Record<string, unknown>, b: Record<string, unknown>): Record<string, unknown> {
  const out = dictFrom(Object.entries(a));
  for (const [k, v] of Object.entries(b)) {
    const prev = out[k];
    out[k] =
      prev && typeof prev === 'object' && v && typeof v === 'object' && !Array.isArray(v)
        ? mergeDeep(prev as Record<string, unknown>, v as Record<string, unknown>)
        : v;
  }
  return out;
}

function toSpecs(tree: Record<string, unknown>, path: string): Map<string, DeepSpec> {
  const out = new Map<string, DeepSpec>();
  for (const [relation, raw] of Object.entries(tree)) {
    const key = `${path}[${relation}]`;
    if (!raw || typeof raw !== 'object' || Array.isArray(raw)) throw bad(`${key} must be an object`, key);
    const o = raw as Record<string, unknown>;
    const int = (name: string, min: number, max: number) => {
      if (o[name] === undefined) return null;
      const n = typeof o[name] === 'string' ? coerce(o[name]) : o[name];
      if (!Number.isInteger(n) || (n as number) < min || (n as number) > max)
        throw bad(`${key}[${name}] must be an integer from ${min} to ${max}`, key);
      return n as number;
    };
    const filter = o._filter ?? null;
    if (filter !== null && (typeof filter !== 'object' || Array.isArray(filter)))
      throw bad(`${key}[_filter] must be a filter object`, key);
    const list = (v: unknown) => (Array.isArray(v) ? v.map(String) : typeof v === 'string' ? commaList(v) : null);
    const nested = dictFrom(Object.entries(o).filter(([k]) => !DEEP_KEYS.has(k)));
    out.set(relation, {
      filter: filter as Record<string, unknown> | null,
      sort: list(o._sort) ?? [],
      limit: int('_limit', 1, 200),
      offset: int('_offset', 0, Number.MAX_SAFE_INTEGER) ?? 0,
      fields: list(o.fields ?? o._fields),
      children: toSpecs(nested, key),
    });
  }
  return out;
}
