import { sql, type RawBuilder } from 'kysely';
import { DomainError } from '../../src/kernel/http/errors.ts';
import type { FieldType } from '../../src/features/schema/schema.types.ts';

export type Filter = Record<string, unknown>;
/** Field name → type, for the collection being queried (system fields included). */
export type FieldTypes = Map<string, FieldType>;

const MAX_DEPTH = 8;
const MAX_CLAUSES = 100;
const SEGMENT = /^[A-Za-z0-9_]+$/;
const COLUMNS: Record<string, { col: string; type: FieldType }> = {
  id: { col: 'id', type: 'string' },
  created_at: { col: 'created_at', type: 'timestamp' },
  created_by: { col: 'created_by', type: 'string' },
  updated_at: { col: 'updated_at', type: 'timestamp' },
  updated_by: { col: 'updated_by', type: 'string' },
};
const NUMERIC: FieldType[] = ['integer', 'bigInteger', 'decimal'];
const TIMES: FieldType[] = ['datetime', 'timestamp'];

const bad = (message: string, path: string[]) =>
  new DomainError('VALIDATION_FAILED', message, { path: ['filter', ...path] });

interface Target {
  expr: RawBuilder<unknown>;
  /** The field's type for a top-level field; null for a path into a JSON value (compared as jsonb). */
  type: FieldType | null;
  text: RawBuilder<unknown>;
  json: RawBuilder<unknown>;
}

/** The SQL expression of a field or a dotted path into a JSON field, typed for comparison. */
export function target(key: string, types: FieldTypes, path: string[] = [key]): Target {
  const segments = key.split('.');
  if (segments.length > MAX_DEPTH || !segments.every((s) => SEGMENT.test(s)))
    throw bad(`invalid field path ${key}`, path);
  const [head, ...rest] = segments as [string, ...string[]];
  const column = COLUMNS[head];
  if (column && rest.length === 0) {
    const c = sql.ref(column.col);
    return { expr: c, type: column.type, text: sql`${c}::text`, json: sql`to_jsonb(${c})` };
  }
  const type = types.get(head);
  if (!type) throw bad(`unknown field ${head}`, path);
  if (rest.length > 0 && type !== 'json') throw bad(`${head} is not a JSON field`, path);
  const p = `{${segments.join(',')}}`;
  const text = sql`(data #>> ${p})`;
  const json = sql`(data #> ${p})`;
  if (rest.length > 0) return { expr: json, type: null, text, json };
  const expr = NUMERIC.includes(type)
    ? sql`(data ->> ${head})::numeric`
    : type === 'boolean'
      ? sql`(data ->> ${head})::boolean`
      : TIMES.includes(type)
        ? sql`(data ->> ${head})::timestamptz`
        : type === 'json' || type === 'geometry'
          ? json
          : text;
  return { expr, type, text, json };
}

/** A filter value made fit for comparison with the target, or 400. */
function operand(t: Target, v: unknown, path: string[]): RawBuilder<unknown> {
  if (t.type === null || t.type === 'json' || t.type === 'geometry') return sql`${JSON.stringify(v)}::jsonb`;
  if (NUMERIC.includes(t.type)) {
    const n =
      typeof v === 'string' && /^-?\d+(\.\d+)?$/.test(v)
        ? v
        : typeof v === 'number' && Number.isFinite(v)
          ? String(v)
          : null;
    if (n === null) throw bad('expected a number', path);
    return sql`${n}::numeric`;
  }
  if (t.type === 'boolean') {
    if (typeof v !== 'boolean') throw bad('expected true or false', path);
    return sql`${v}::boolean`;
  }
  if (TIMES.includes(t.type)) {
    if (typeof v !== 'string' || Number.isNaN(Date.parse(v))) throw bad('expected an ISO 8601 time', path);
    return sql`${v}::timestamptz`;
  }
  if (typeof v !== 'string' && typeof v !== 'number') throw bad('expected a string', path);
  return sql`${String(v)}`;
}

const like = (s: unknown) => String(s).replace(/[\\%_]/g, (c) => `\\${c}`);
const list = (v: unknown, path: string[]): unknown[] => {
  if (!Array.isArray(v)) throw bad('expected an array', path);
  return v;
};
const keys = (v: unknown, path: string[]) => {
  const l = list(v, path);
  if (!l.every((k) => typeof k === 'string')) throw bad('expected an array of strings', path);
  return l as string[];
};

function condition(t: Target, op: string, v: unknown, path: string[]): RawBuilder<unknown> {
  const o = (x: unknown) => operand(t, x, path);
  switch (op) {
    case '_eq':
      return v === null ? sql`${t.expr} is null` : sql`${t.expr} = ${o(v)}`;
    case '_neq':
      return v === null ? sql`${t.expr} is not null` : sql`${t.expr} is distinct from ${o(v)}`;
    case '_lt':
      return sql`${t.expr} < ${o(v)}`;
    case '_lte':
      return sql`${t.expr} <= ${o(v)}`;
    case '_gt':
      return sql`${t.expr} > ${o(v)}`;
    case '_gte':
      return sql`${t.expr} >= ${o(v)}`;
    case '_in':
      return list(v, path).length ? sql`${t.expr} in (${sql.join(list(v, path).map(o))})` : sql`false`;
    case '_nin':
      return list(v, path).length ? sql`${t.expr} not in (${sql.join(list(v, path).map(o))})` : sql`true`;
    case '_null':
      return v === false ? sql`${t.expr} is not null` : sql`${t.expr} is null`;
    case '_nnull':
      return v === false ? sql`${t.expr} is null` : sql`${t.expr} is not null`;
    case '_contains':
      return sql`${t.text} like ${`%${like(v)}%`}`;
    case '_icontains':
      return sql`${t.text} ilike ${`%${like(v)}%`}`;
    case '_starts_with':
      return sql`${t.text} like ${`${like(v)}%`}`;
    case '_ends_with':
      return sql`${t.text} like ${`%${like(v)}`}`;
    case '_between': {
      const [a, b] = list(v, path);
      if (list(v, path).length !== 2) throw bad('_between takes two values', path);
      return sql`${t.expr} between ${o(a)} and ${o(b)}`;
    }
    case '_json_contains':
      return sql`${t.json} @> ${JSON.stringify(v)}::jsonb`;
    case '_has_key':
      return sql`${t.json} ? ${String(v)}`;
    case '_has_any_keys':
      return sql`${t.json} ?| ${keys(v, path)}::text[]`;
    case '_has_all_keys':
      return sql`${t.json} ?& ${keys(v, path)}::text[]`;
    default:
      throw bad(`unknown operator ${op}`, path);
  }
}

/** Compiles a filter (spec "Filter operators") to one SQL condition; never filters in JavaScript. */
export function compileFilter(filter: Filter, types: FieldTypes): RawBuilder<unknown> {
  let clauses = 0;
  const walk = (f: Filter, path: string[]): RawBuilder<unknown> => {
    const parts: RawBuilder<unknown>[] = [];
    for (const [key, value] of Object.entries(f)) {
      const here = [...path, key];
      if (key === '_and' || key === '_or') {
        const items = Array.isArray(value) ? value : value && typeof value === 'object' ? Object.values(value) : null;
        if (!items) throw bad(`${key} takes a list of filters`, here);
        const inner = items.map((x, i) => walk(x as Filter, [...here, String(i)]));
        if (inner.length) parts.push(sql`(${sql.join(inner, key === '_and' ? sql` and ` : sql` or `)})`);
        continue;
      }
      if (!value || typeof value !== 'object' || Array.isArray(value))
        throw bad(`${key} needs an operator object such as {"_eq": …}`, here);
      const t = target(key, types, here);
      for (const [op, v] of Object.entries(value)) {
        if (++clauses > MAX_CLAUSES) throw bad(`a filter has at most ${MAX_CLAUSES} clauses`, here);
        parts.push(condition(t, op, v, [...here, op]));
      }
    }
    return parts.length ? sql`(${sql.join(parts, sql` and `)})` : sql`true`;
  };
  return walk(filter, []);
}
