import { sql, type RawBuilder } from 'kysely';
import { FieldNotReadable, InvalidItemQuery } from './item-query.errors.ts';
import { own } from '../../src/kernel/safe/keys.ts';
import type { FieldType } from '../../src/contracts/schema/schema.types.ts';
import type { RelationRecord } from '../schema/index.ts';
import {
  NUMERIC_TYPES,
  TIME_TYPES,
  fieldDef,
  relationOn,
  valueExpr,
  valueType,
  type SiteSchema,
} from '../schema/index.ts';

export type Filter = Record<string, unknown>;

/**
 * The caller's read permissions, as a query needs them: which rows of a collection it may see (a condition on
 * the rows under an alias, null for all) and which fields. Every relation a query follows is guarded too.
 */
export interface Guard {
  rows(collection: string, scope: Scope): RawBuilder<unknown> | null;
  visible(collection: string, field: string): boolean;
}

/** Where a query stands: a collection of a site's schema, read under a table alias (a0, a1, … for relations). */
export interface Scope {
  schema: SiteSchema;
  collection: string;
  alias: string;
  /** Shared by the scopes of one query, so that every relation subquery gets its own alias. */
  aliases: { n: number };
  guard?: Guard;
}

export function rootScope(schema: SiteSchema, collection: string, guard?: Guard): Scope {
  return { schema, collection, alias: 'a0', aliases: { n: 0 }, guard };
}

/** The guard's condition on the scope's rows (true without a guard). */
export function guardRows(scope: Scope): RawBuilder<unknown> {
  return scope.guard?.rows(scope.collection, scope) ?? sql`true`;
}

const MAX_DEPTH = 8;
const MAX_CLAUSES = 100;
const SEGMENT = /^[A-Za-z0-9_]+$/;
const COLUMNS: Record<string, { col: string; type: FieldType }> = {
  id: { col: 'id', type: 'string' },
  created_at: { col: 'created_at', type: 'timestamp' },
  created_by: { col: 'created_by', type: 'string' },
  updated_at: { col: 'updated_at', type: 'timestamp' },
  updated_by: { col: 'updated_by', type: 'string' },
  deleted_at: { col: 'deleted_at', type: 'timestamp' },
  deleted_by: { col: 'deleted_by', type: 'string' },
};
const NUMERIC = NUMERIC_TYPES;
const TIMES = TIME_TYPES;

const bad = (message: string, path: string[], root = 'filter') =>
  new InvalidItemQuery({ message, path: [root, ...path] });

interface Target {
  expr: RawBuilder<unknown>;
  /** The field's type for a top-level field; null for a path into a JSON value (compared as jsonb). */
  type: FieldType | null;
  text: RawBuilder<unknown>;
  json: RawBuilder<unknown>;
}

type Resolved = { kind: 'value'; target: Target } | { kind: 'relation'; relation: RelationRecord; rest: string[] };

/** A field, a dotted path into a JSON field, or a path through a relation (`author.name`). */
function resolve(key: string, scope: Scope, path: string[], root: string): Resolved {
  const segments = key.split('.');
  if (segments.length > MAX_DEPTH || !segments.every((s) => SEGMENT.test(s)))
    throw bad(`invalid field path ${key}`, path, root);
  const [head, ...rest] = segments as [string, ...string[]];
  const a = scope.alias;
  const column = own(COLUMNS, head);
  if (column && rest.length === 0) {
    const c = sql.ref(`${a}.${column.col}`);
    return { kind: 'value', target: { expr: c, type: column.type, text: sql`${c}::text`, json: sql`to_jsonb(${c})` } };
  }
  const type = valueType(scope.schema, scope.collection, head);
  if (!type) throw bad(`unknown field ${head}`, path, root);
  if (scope.guard && !scope.guard.visible(scope.collection, head))
    throw new FieldNotReadable({ collection: scope.collection, field: head, path: [root, ...path] });
  const def = fieldDef(scope.schema, scope.collection, head);
  if (def?.encrypted) throw bad(`${head} is encrypted: it cannot be filtered or sorted`, path, root);
  if (def?.personal) throw bad(`${head} is personal data: it cannot be filtered or sorted`, path, root);
  const relation = relationOn(scope.schema, scope.collection, head);
  if (relation && rest.length > 0) return { kind: 'relation', relation, rest };
  if (rest.length > 0 && type !== 'json') throw bad(`${head} is not a JSON field or a relation`, path, root);
  const data = sql.ref(`${a}.data`);
  const p = sql.lit(`{${segments.join(',')}}`);
  const text = sql`(${data} #>> ${p})`;
  const json = sql`(${data} #> ${p})`;
  if (rest.length > 0) return { kind: 'value', target: { expr: json, type: null, text, json } };
  return { kind: 'value', target: { expr: valueExpr(type, head, a), type, text, json } };
}

/** The items a relation leads to from the scope's item, as a FROM … WHERE fragment under a new alias. */
function relatedFrom(relation: RelationRecord, scope: Scope, path: string[], root: string) {
  const b = `a${++scope.aliases.n}`;
  const inner: Scope = { ...scope, collection: relation.target ?? '', alias: b };
  const a = sql.table(scope.alias);
  const t = sql.table(b);
  const visible = inner.guard?.rows(inner.collection, inner) ?? sql`true`;
  const live = sql`${t}.site_id = ${a}.site_id and ${t}.collection = ${sql.lit(relation.target)} and ${t}.deleted_at is null and ${visible}`;
  switch (relation.kind) {
    case 'm2o':
      return {
        inner,
        from: sql`item_documents ${t}`,
        where: sql`${live} and ${t}.id = ${a}.data ->> ${sql.lit(relation.field)}`,
      };
    case 'o2m':
      return {
        inner,
        from: sql`item_documents ${t}`,
        where: sql`${live} and ${t}.data ->> ${sql.lit(relation.targetField)} = ${a}.id`,
      };
    case 'm2m': {
      const j = sql.table(`${b}j`);
      return {
        inner,
        from: sql`item_documents ${j} join item_documents ${t} on ${live} and ${t}.id = ${j}.data ->> ${sql.lit(relation.targetField)}`,
        where: sql`${j}.site_id = ${a}.site_id and ${j}.collection = ${sql.lit(relation.junctionCollection)}
                   and ${j}.deleted_at is null and ${j}.data ->> ${sql.lit(relation.junctionField)} = ${a}.id`,
      };
    }
    case 'm2a':
      throw bad(`${relation.field} links to any collection: it cannot be followed in a filter or sort`, path, root);
  }
}

/** The SQL expression to sort by: a field, a JSON path, or a value of an m2o related item. */
export function sortTarget(key: string, scope: Scope): RawBuilder<unknown> {
  const r = resolve(key, scope, [key], 'sort');
  if (r.kind === 'value') return r.target.expr;
  if (r.relation.kind !== 'm2o') throw bad(`sort can follow only many-to-one relations`, [key], 'sort');
  const { inner, from, where } = relatedFrom(r.relation, scope, [key], 'sort');
  return sql`(select ${sortTarget(r.rest.join('.'), inner)} from ${from} where ${where} limit 1)`;
}

/** Where a value can be compared: the field of the scope, or a value of a related item. */
/** A field's value for a select list (aggregates, group keys); errors name the query parameter `root`. */
export function target(key: string, scope: Scope, root: string, path: string[] = [key]): Target {
  const r = resolve(key, scope, path, root);
  if (r.kind === 'relation') throw bad(`${key} leads through a relation`, path, root);
  return r.target;
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
    // What PostgreSQL reads too (Date.parse also takes "1" and February 30): a real date, then maybe a time and zone.
    const m = /^(\d{4})-(\d\d)-(\d\d)(?:[T ](\d\d):(\d\d)(?::(\d\d)(?:\.\d+)?)?(?:Z|[+-](\d\d)(?::?(\d\d))?)?)?$/.exec(
      typeof v === 'string' ? v : '',
    );
    const [y = 0, mo = 0, d = 0, h = 0, mi = 0, s = 0, zh = 0, zm = 0] = (m ?? []).slice(1).map((x) => Number(x ?? 0));
    const day = new Date(0);
    day.setUTCFullYear(y, mo - 1, d);
    const real = y >= 1 && day.getUTCMonth() === mo - 1 && day.getUTCDate() === d;
    if (!m || !real || h > 23 || mi > 59 || s > 59 || zh > 15 || zm > 59) throw bad('expected an ISO 8601 time', path);
    // Read like stored values (svc_ts): a time without a zone is UTC, whatever the session's time zone.
    return sql`svc_ts(${v})`;
  }
  if (typeof v !== 'string' && typeof v !== 'number' && typeof v !== 'boolean') throw bad('expected a string', path);
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
  // In JSON, null is null too, and values compare only with values of their own type (jsonb orders null < "a" < 1).
  const json = t.type === null || t.type === 'json' || t.type === 'geometry';
  const e = json ? sql`nullif(${t.expr}, 'null'::jsonb)` : t.expr;
  const cmp = (operator: '<' | '<=' | '>' | '>=', x: unknown) =>
    json
      ? sql`(jsonb_typeof(${e}) = jsonb_typeof(${o(x)}) and ${e} ${sql.raw(operator)} ${o(x)})`
      : sql`${e} ${sql.raw(operator)} ${o(x)}`;
  switch (op) {
    case '_eq':
      return v === null ? sql`${e} is null` : sql`${e} = ${o(v)}`;
    case '_neq':
      return v === null ? sql`${e} is not null` : sql`${e} is distinct from ${o(v)}`;
    case '_lt':
      return cmp('<', v);
    case '_lte':
      return cmp('<=', v);
    case '_gt':
      return cmp('>', v);
    case '_gte':
      return cmp('>=', v);
    case '_in':
      return list(v, path).length ? sql`${e} in (${sql.join(list(v, path).map(o))})` : sql`false`;
    case '_nin':
      // Like _neq: a null value is not in the list.
      return list(v, path).length ? sql`(${e} is null or ${e} not in (${sql.join(list(v, path).map(o))}))` : sql`true`;
    case '_null':
      return v === false ? sql`${e} is not null` : sql`${e} is null`;
    case '_nnull':
      return v === false ? sql`${e} is null` : sql`${e} is not null`;
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
      return sql`(${cmp('>=', a)} and ${cmp('<=', b)})`;
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

const isOperatorObject = (v: object) => Object.keys(v).every((k) => k.startsWith('_'));

/**
 * Compiles a filter (spec "Filter operators") to one SQL condition; never filters in JavaScript. A key may follow a
 * relation, dotted (`author.name`) or nested (`{ author: { name: { _eq } } }`): it matches when some related item
 * matches.
 */
export function compileFilter(filter: Filter, root: Scope): RawBuilder<unknown> {
  let clauses = 0;
  const walk = (f: Filter, scope: Scope, path: string[]): RawBuilder<unknown> => {
    const parts: RawBuilder<unknown>[] = [];
    for (const [key, value] of Object.entries(f)) {
      const here = [...path, key];
      if (key === '_and' || key === '_or') {
        const items = Array.isArray(value) ? value : value && typeof value === 'object' ? Object.values(value) : null;
        if (!items) throw bad(`${key} takes a list of filters`, here);
        const inner = items.map((x, i) => {
          if (!x || typeof x !== 'object' || Array.isArray(x))
            throw bad('expected a filter object', [...here, String(i)]);
          return walk(x as Filter, scope, [...here, String(i)]);
        });
        // An empty _or has no alternative that holds: it matches nothing (an empty _and matches everything).
        if (inner.length) parts.push(sql`(${sql.join(inner, key === '_and' ? sql` and ` : sql` or `)})`);
        else if (key === '_or') parts.push(sql`false`);
        continue;
      }
      if (!value || typeof value !== 'object' || Array.isArray(value))
        throw bad(`${key} needs an operator object such as {"_eq": …}`, here);
      if (here.length + (key.split('.').length - 1) > MAX_DEPTH * 2) throw bad('the filter is nested too deeply', here);
      const r = resolve(key, scope, here, 'filter');
      const relation =
        r.kind === 'relation'
          ? { relation: r.relation, inner: { [r.rest.join('.')]: value } }
          : !isOperatorObject(value) && relationOn(scope.schema, scope.collection, key)
            ? { relation: relationOn(scope.schema, scope.collection, key)!, inner: value as Filter }
            : null;
      if (relation) {
        const { inner, from, where } = relatedFrom(relation.relation, scope, here, 'filter');
        parts.push(sql`exists (select 1 from ${from} where ${where} and ${walk(relation.inner, inner, here)})`);
        continue;
      }
      if (r.kind !== 'value') throw bad(`${key} leads through a relation`, here);
      for (const [op, v] of Object.entries(value)) {
        if (++clauses > MAX_CLAUSES) throw bad(`a filter has at most ${MAX_CLAUSES} clauses`, here);
        parts.push(condition(r.target, op, v, [...here, op]));
      }
    }
    return parts.length ? sql`(${sql.join(parts, sql` and `)})` : sql`true`;
  };
  return walk(filter, root, []);
}
