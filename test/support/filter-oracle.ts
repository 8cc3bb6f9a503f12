import {
  compareDecimal,
  compareJsonScalars,
  compareText,
  jsonContains,
  jsonEqual,
  jsonHasKey,
  jsonText,
} from './jsonb.ts';

/**
 * The list query of GET /items/:collection read plainly, item by item (spec "Filter operators"), to check the SQL
 * against. Semantics:
 * - A top-level field compares by its type: text by code point (the "C" collation of the test databases), numbers
 *   exactly, booleans false < true, date-times as instants (no zone means UTC). A dotted path into a JSON field,
 *   and a JSON field itself, compare as jsonb; `_lt`… compare only values of the same JSON type.
 * - A missing value, null and JSON null are all null. A comparison with null does not match, except `_neq` and
 *   `_nin`, which match it (null is not equal to the value, and is not in the list).
 * - `_contains`, `_icontains`, `_starts_with`, `_ends_with` look at the value's text, case-insensitively for
 *   `_icontains`; `_json_contains` and the `_has_*keys` operators are jsonb's `@>`, `?`, `?|`, `?&`.
 * - A sort follows PostgreSQL's default (and its b-tree indexes): nulls last ascending, first descending; ties
 *   fall back to created_at, then id.
 */
export type Kind = 'text' | 'numeric' | 'boolean' | 'time' | 'json';
export type OracleSchema = Record<string, Kind>;
export type Doc = Record<string, unknown> & { id: string; created_at: string };
export type Filter = Record<string, unknown>;

/** A value where a filter key points: the raw JSON value (undefined when absent) and how it compares. */
function lookup(doc: Doc, key: string, schema: OracleSchema): { kind: Kind; raw: unknown } {
  const [head, ...rest] = key.split('.') as [string, ...string[]];
  const kind = schema[head];
  if (!kind) throw new Error(`the oracle does not know ${head}`);
  let raw: unknown = doc[head];
  for (const s of rest) {
    if (Array.isArray(raw) && /^\d+$/.test(s)) raw = raw[Number(s)];
    else if (raw && typeof raw === 'object' && !Array.isArray(raw) && Object.hasOwn(raw, s))
      raw = (raw as Record<string, unknown>)[s];
    else raw = undefined;
  }
  return { kind: rest.length ? 'json' : kind, raw };
}

const instant = (v: unknown) => {
  const s = String(v);
  return Date.parse(/(Z|[+-]\d{2}:?\d{2})$/.test(s) ? s : `${s}Z`);
};

/** Order of a value and an operand of a kind, or null when they do not compare. */
function compare(kind: Kind, a: unknown, b: unknown): number | null {
  if (a === null || a === undefined || b === null || b === undefined) return null;
  switch (kind) {
    case 'text':
      return compareText(String(a), String(b));
    case 'numeric':
      return compareDecimal(a as number | string, b as number | string);
    case 'boolean':
      return Number(a) - Number(b);
    case 'time':
      return Math.sign(instant(a) - instant(b));
    case 'json':
      if (typeof a !== typeof b || typeof a === 'object') return null;
      return compareJsonScalars(a, b);
  }
}

const equal = (kind: Kind, a: unknown, b: unknown) =>
  a !== null && a !== undefined && (kind === 'json' ? jsonEqual(a, b) : compare(kind, a, b) === 0);

function condition(kind: Kind, raw: unknown, op: string, v: unknown): boolean {
  const value = raw === undefined ? null : raw;
  const cmp = (x: unknown, test: (n: number) => boolean) => {
    const c = compare(kind, value, x);
    return c !== null && test(c);
  };
  const text = () => jsonText(value);
  switch (op) {
    case '_eq':
      return v === null ? value === null : equal(kind, value, v);
    case '_neq':
      return v === null ? value !== null : !equal(kind, value, v);
    case '_lt':
      return cmp(v, (c) => c < 0);
    case '_lte':
      return cmp(v, (c) => c <= 0);
    case '_gt':
      return cmp(v, (c) => c > 0);
    case '_gte':
      return cmp(v, (c) => c >= 0);
    case '_between': {
      const [a, b] = v as [unknown, unknown];
      return cmp(a, (c) => c >= 0) && cmp(b, (c) => c <= 0);
    }
    case '_in':
      return (v as unknown[]).some((x) => equal(kind, value, x));
    case '_nin':
      return !(v as unknown[]).some((x) => equal(kind, value, x));
    case '_null':
      return v === false ? value !== null : value === null;
    case '_nnull':
      return v === false ? value === null : value !== null;
    case '_contains':
      return text()?.includes(String(v)) ?? false;
    case '_icontains':
      return text()?.toLowerCase().includes(String(v).toLowerCase()) ?? false;
    case '_starts_with':
      return text()?.startsWith(String(v)) ?? false;
    case '_ends_with':
      return text()?.endsWith(String(v)) ?? false;
    case '_json_contains':
      return raw !== undefined && jsonContains(raw, v);
    case '_has_key':
      return raw !== undefined && jsonHasKey(raw, String(v));
    case '_has_any_keys':
      return raw !== undefined && (v as string[]).some((k) => jsonHasKey(raw, k));
    case '_has_all_keys':
      return raw !== undefined && (v as string[]).every((k) => jsonHasKey(raw, k));
    default:
      throw new Error(`the oracle does not know ${op}`);
  }
}

/** Whether an item matches a filter: every key of an object holds, `_and` all, `_or` any. */
export function matches(doc: Doc, filter: Filter, schema: OracleSchema): boolean {
  return Object.entries(filter).every(([key, value]) => {
    if (key === '_and') return (value as Filter[]).every((f) => matches(doc, f, schema));
    if (key === '_or') return (value as Filter[]).some((f) => matches(doc, f, schema));
    const { kind, raw } = lookup(doc, key, schema);
    return Object.entries(value as Filter).every(([op, v]) => condition(kind, raw, op, v));
  });
}

/** Items in the order of a sort list (`-` for descending; nulls are the largest), then by created_at and id. */
export function sortDocs(docs: Doc[], sort: string[], schema: OracleSchema): Doc[] {
  const keys = sort.map((s) => ({ key: s.replace(/^-/, ''), dir: s.startsWith('-') ? -1 : 1 }));
  return [...docs].sort((a, b) => {
    for (const { key, dir } of keys) {
      const x = lookup(a, key, schema);
      const y = lookup(b, key, schema);
      const xa = x.raw === undefined || x.raw === null;
      const ya = y.raw === undefined || y.raw === null;
      if (xa || ya) {
        if (xa !== ya) return (xa ? 1 : -1) * dir;
        continue;
      }
      const c = x.kind === 'json' ? compareJsonScalars(x.raw, y.raw) : compare(x.kind, x.raw, y.raw)!;
      if (c !== 0) return c * dir;
    }
    return compareText(a.created_at, b.created_at) || compareText(a.id, b.id);
  });
}
