import fc from 'fast-check';
import type { Doc, Filter, OracleSchema } from './filter-oracle.ts';

/** How the oracle compares each key of the collection the filter property test writes. */
export const SCHEMA: OracleSchema = {
  id: 'text',
  status: 'text',
  title: 'text',
  views: 'numeric',
  price: 'numeric',
  big: 'numeric',
  flag: 'boolean',
  at: 'time',
  meta: 'json',
};

/** The collection's fields and their types. */
export const FIELDS = {
  title: 'string',
  views: 'integer',
  price: 'decimal',
  big: 'bigInteger',
  flag: 'boolean',
  at: 'datetime',
  meta: 'json',
} as const;
const PRICES = ['0', '0.5', '1.50', '-2.25', '10', 3.75, 0.1, -1, '0.10'];
const BIGS = ['9007199254740993', '9007199254740992', '-9007199254740993', 5, '1234567890123456789', '0'];
const TIMES = [
  '2024-01-01T00:00:00Z',
  '2024-01-01T01:00:00+01:00',
  '2024-01-01T00:00:00',
  '2024-03-10T12:30:00.250Z',
  '2023-12-31T23:59:59Z',
  '2024-06-01T08:00:00-05:00',
];
const STATUSES = ['draft', 'published', 'archived'];
const KEYS = ['rank', 'score', 'tags', 'info', 'code', 'n', 'deep', 'x'];

const word = fc.string({ unit: fc.constantFrom('a', 'b', 'A', 'é', 'É', '%', '_', '\\', ' '), maxLength: 3 });
const int = fc.integer({ min: -5, max: 5 });
const scalar = fc.oneof(int, fc.constantFrom(0.5, -1.25, 10), word, fc.boolean());
const opt = <T>(a: fc.Arbitrary<T>) => fc.option(a, { nil: null, freq: 6 });

const metaArb = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record(
      {
        rank: opt(scalar),
        score: fc.oneof(int, word),
        tags: fc.array(word, { maxLength: 3 }),
        info: fc.record(
          {
            code: opt(fc.oneof(word, fc.nat(3))),
            n: fc.oneof(int, fc.constant(1.5)),
            deep: fc.record({ x: fc.oneof(word, int) }, { requiredKeys: [] }),
          },
          { requiredKeys: [] },
        ),
      },
      { requiredKeys: [] },
    ),
  },
  { weight: 1, arbitrary: fc.constant(null) },
  { weight: 1, arbitrary: fc.oneof(word, fc.array(word, { maxLength: 2 })) },
);

/** An item with any of its values missing or null; `meta` is mostly an object, sometimes null, a string or an array. */
export const itemArb = fc.record(
  {
    status: fc.constantFrom(...STATUSES),
    title: opt(word),
    views: opt(int),
    price: opt(fc.constantFrom(...PRICES)),
    big: opt(fc.constantFrom(...BIGS)),
    flag: opt(fc.boolean()),
    at: opt(fc.constantFrom(...TIMES)),
    meta: metaArb,
  },
  { requiredKeys: [] },
);

/** The distinct non-null values found at a key of some items, to draw filter values that match some of them. */
type Pool = (key: string) => unknown[];
const poolOf =
  (docs: Doc[]): Pool =>
  (key) => {
    const seen = new Map<string, unknown>();
    for (const d of docs) {
      let v: unknown = d;
      for (const s of key.split('.')) v = v && typeof v === 'object' ? (v as Record<string, unknown>)[s] : undefined;
      if (v !== null && v !== undefined) seen.set(JSON.stringify(v), v);
    }
    return [...seen.values()];
  };
const from = (pool: Pool, key: string, extra: fc.Arbitrary<unknown>) => {
  const values = pool(key);
  return values.length ? fc.oneof(fc.constantFrom(...values), extra) : extra;
};

const COMMON = ['_eq', '_neq', '_in', '_nin', '_null', '_nnull'];
const ORDER = ['_lt', '_lte', '_gt', '_gte', '_between'];
const TEXT = ['_contains', '_icontains', '_starts_with', '_ends_with'];
const KEYED = ['_has_key', '_has_any_keys', '_has_all_keys', '_json_contains'];

interface Target {
  key: string;
  ops: string[];
  value: fc.Arbitrary<unknown>;
  /** The value of `_json_contains`, for JSON targets. */
  contains?: fc.Arbitrary<unknown>;
}

/** Words found in JSON arrays, so that containment and key tests sometimes hit an element. */
const element = (pool: Pool) => {
  const words = [...new Set([...pool('meta.tags'), ...pool('meta')].flatMap((v) => (Array.isArray(v) ? v : [])))];
  return words.length ? fc.oneof(fc.constantFrom(...(words as string[])), word) : word;
};

function targets(pool: Pool): Target[] {
  const scalarAt = (key: string) => from(pool, key, scalar);
  return [
    { key: 'id', ops: [...COMMON, ...ORDER], value: from(pool, 'id', word) },
    { key: 'status', ops: [...COMMON, ...ORDER, ...TEXT], value: fc.oneof(fc.constantFrom(...STATUSES), word) },
    { key: 'title', ops: [...COMMON, ...ORDER, ...TEXT], value: from(pool, 'title', word) },
    { key: 'views', ops: [...COMMON, ...ORDER, ...TEXT], value: fc.oneof(int, int.map(String), fc.constant(2.5)) },
    { key: 'price', ops: [...COMMON, ...ORDER], value: fc.constantFrom(...PRICES, '1.5', 2) },
    { key: 'big', ops: [...COMMON, ...ORDER], value: fc.constantFrom(...BIGS, '9007199254740994') },
    { key: 'flag', ops: [...COMMON, ...ORDER], value: fc.boolean() },
    { key: 'at', ops: [...COMMON, ...ORDER], value: fc.constantFrom(...TIMES, '2024-01-01T00:00:00.001Z') },
    {
      key: 'meta',
      ops: ['_eq', '_neq', '_in', '_nin', '_null', '_nnull', ...KEYED],
      value: from(pool, 'meta', fc.constant({})),
      contains: fc.oneof(
        fc.record({ rank: scalar }),
        fc.record({ tags: fc.array(word, { maxLength: 2 }) }),
        fc.record({ info: fc.record({ code: fc.oneof(word, fc.nat(3)) }) }),
        fc.record({ info: fc.record({ deep: fc.record({ x: fc.oneof(word, int) }) }) }),
        element(pool),
        fc.constant({}),
      ),
    },
    { key: 'meta.rank', ops: [...COMMON, ...ORDER, ...TEXT], value: scalarAt('meta.rank') },
    { key: 'meta.score', ops: [...COMMON, ...ORDER, ...TEXT], value: scalarAt('meta.score') },
    { key: 'meta.info.code', ops: [...COMMON, ...ORDER, ...TEXT], value: scalarAt('meta.info.code') },
    { key: 'meta.info.n', ops: [...COMMON, ...ORDER], value: scalarAt('meta.info.n') },
    { key: 'meta.info.deep.x', ops: [...COMMON, ...ORDER, ...TEXT], value: scalarAt('meta.info.deep.x') },
    { key: 'meta.tags.0', ops: [...COMMON, ...TEXT], value: scalarAt('meta.tags.0') },
    {
      key: 'meta.tags',
      ops: ['_null', '_nnull', ...KEYED],
      value: word,
      contains: fc.oneof(element(pool), fc.array(element(pool), { maxLength: 2 })),
    },
    {
      key: 'meta.info',
      ops: ['_null', '_nnull', ...KEYED],
      value: word,
      contains: fc.oneof(
        fc.record({ code: fc.oneof(word, fc.nat(3)) }),
        fc.record({ deep: fc.record({ x: fc.oneof(word, int) }) }),
        fc.record({ n: int }),
      ),
    },
  ];
}

function operatorValue(target: Target, op: string, pool: Pool): fc.Arbitrary<unknown> {
  const keys = fc.oneof(fc.constantFrom(...KEYS), element(pool));
  switch (op) {
    case '_eq':
    case '_neq':
      return fc.oneof({ weight: 6, arbitrary: target.value }, { weight: 1, arbitrary: fc.constant(null) });
    case '_in':
    case '_nin':
      return fc.array(target.value, { maxLength: 3 });
    case '_between':
      return fc.tuple(target.value, target.value);
    case '_null':
    case '_nnull':
      return fc.boolean();
    case '_has_key':
      return keys;
    case '_has_any_keys':
    case '_has_all_keys':
      return fc.array(keys, { minLength: 1, maxLength: 3 });
    case '_json_contains':
      return target.contains ?? target.value;
    default:
      return TEXT.includes(op) ? fc.oneof(word, fc.constantFrom('1', '-', 'e', 'ru')) : target.value;
  }
}

/** Random filters over every operator, nested `_and`/`_or` groups and dotted JSON paths, at most 100 clauses. */
export function filterArb(docs: Doc[]): fc.Arbitrary<Filter> {
  const pool = poolOf(docs);
  const leaf = fc.oneof(
    ...targets(pool).map((target) =>
      fc
        .uniqueArray(fc.constantFrom(...target.ops), { minLength: 1, maxLength: 2, size: 'xsmall' })
        .chain((ops) => fc.tuple(...ops.map((op) => operatorValue(target, op, pool))).map((vs) => ({ ops, vs })))
        .map(({ ops, vs }) => ({ [target.key]: Object.fromEntries(ops.map((op, i) => [op, vs[i]])) }) as Filter),
    ),
  );
  const { filter } = fc.letrec<{ filter: Filter; group: Filter; object: Filter }>((tie) => ({
    filter: fc.oneof(
      { maxDepth: 3, depthIdentifier: 'filter' },
      { weight: 3, arbitrary: leaf },
      { weight: 2, arbitrary: tie('group') },
      { weight: 1, arbitrary: tie('object') },
    ),
    group: fc
      .tuple(fc.constantFrom('_and', '_or', '_or'), fc.array(tie('filter'), { minLength: 1, maxLength: 3 }))
      .map(([key, items]) => ({ [key]: items })),
    object: fc.array(tie('filter'), { minLength: 2, maxLength: 2 }).map((fs) => Object.assign({}, ...fs) as Filter),
  }));
  return filter.filter((f) => JSON.stringify(f).split('"_').length - 1 <= 100);
}

// JSON paths that never hold JSON null: a sort still puts JSON null first (jsonb order), not last with the nulls.
const SORTABLE = ['id', 'status', 'title', 'views', 'price', 'big', 'flag', 'at', 'meta.score', 'meta.info.n'];
/** Up to three sort keys, each ascending or descending. */
export const sortArb = fc
  .uniqueArray(fc.constantFrom(...SORTABLE), { maxLength: 3 })
  .chain((keys) => fc.tuple(...keys.map((k) => fc.constantFrom(k, `-${k}`))))
  .map((keys) => [...keys]);
