import { dict } from '../../src/kernel/safe/keys.ts';
import { sql, type RawBuilder } from 'kysely';
import { InvalidItemQuery } from './item-query.errors.ts';
import { target, type Scope } from './item-filter.ts';
import { NUMERIC_TYPES, TIME_TYPES } from '../schema/index.ts';

export const AGGREGATES = ['count', 'countDistinct', 'sum', 'avg', 'min', 'max'] as const;
export type AggregateFn = (typeof AGGREGATES)[number];
/** `aggregate[sum]=price,qty` → { sum: ['price', 'qty'] }; `aggregate[count]=*` counts rows. */
export type Aggregate = Partial<Record<AggregateFn, string[]>>;

const bad = (message: string, key: string) => new InvalidItemQuery({ message, path: ['query', key] });

const ORDERED: string[] = [...NUMERIC_TYPES, ...TIME_TYPES, 'date', 'time', 'string', 'enum', 'uuid'];

/** The select list of an aggregate query: one column per function and field, named `fn.field`. */
export function aggregateColumns(agg: Aggregate, scope: Scope): RawBuilder<unknown>[] {
  const cols: RawBuilder<unknown>[] = [];
  for (const [fn, fields] of Object.entries(agg) as [AggregateFn, string[]][]) {
    for (const f of fields) {
      const key = `aggregate[${fn}]`;
      const name = sql.id(`${fn}.${f}`);
      if (f === '*') {
        if (fn !== 'count') throw bad(`${fn} needs a field, not *`, key);
        cols.push(sql`count(*)::float8 as ${name}`);
        continue;
      }
      const t = target(f, scope, key);
      if ((fn === 'sum' || fn === 'avg') && !NUMERIC_TYPES.includes(t.type ?? 'json'))
        throw bad(`${fn} needs a number field; ${f} is not one`, key);
      if ((fn === 'min' || fn === 'max') && !ORDERED.includes(t.type ?? 'json'))
        throw bad(`${fn} needs an ordered field; ${f} is not one`, key);
      const e = t.expr;
      // Counts and numbers come back as JSON numbers (float8), times as ISO strings, other values as they are.
      const expr =
        fn === 'count'
          ? sql`count(${e})::float8`
          : fn === 'countDistinct'
            ? sql`count(distinct ${e})::float8`
            : NUMERIC_TYPES.includes(t.type!)
              ? sql`${sql.raw(fn)}(${e})::float8`
              : sql`${sql.raw(fn)}(${e})`;
      cols.push(sql`${expr} as ${name}`);
    }
  }
  return cols;
}

/** The group keys of `groupBy=a,b`: each field's JSON value, so that groups come back with their own types. */
export function groupColumns(
  groupBy: string[],
  scope: Scope,
): { select: RawBuilder<unknown>[]; by: RawBuilder<unknown>[] } {
  const select: RawBuilder<unknown>[] = [];
  const by: RawBuilder<unknown>[] = [];
  groupBy.forEach((f, i) => {
    const t = target(f, scope, 'groupBy');
    by.push(t.json);
    select.push(sql`${t.json} as ${sql.id(`g${i}`)}`);
  });
  return { select, by };
}

/** A result row as the API shows it: `{ <group fields…>, count: 3, sum: { price: 10 } }` (count of * is a number). */
export function aggregateRow(row: Record<string, unknown>, groupBy: string[]): Record<string, unknown> {
  const out = dict<unknown>();
  groupBy.forEach((f, i) => (out[f] = row[`g${i}`] ?? null));
  for (const [col, raw] of Object.entries(row)) {
    const dot = col.indexOf('.');
    if (dot < 0) continue;
    const fn = col.slice(0, dot);
    const field = col.slice(dot + 1);
    const value = raw instanceof Date ? raw.toISOString() : raw;
    if (field === '*') out[fn] = value;
    else out[fn] = Object.assign(dict(), out[fn] as object | undefined, { [field]: value });
  }
  return out;
}
