/**
 * PostgreSQL's value semantics, in memory, for the filter oracle: exact decimal order, code-point text order
 * (the "C" collation of the test databases) and jsonb equality, order, containment and key tests.
 */

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

const isObject = (v: unknown): v is Record<string, Json> => v !== null && typeof v === 'object' && !Array.isArray(v);
const isScalar = (v: unknown) => v === null || typeof v !== 'object';
const sign = (n: number) => (n < 0 ? -1 : n > 0 ? 1 : 0);

/** Code-point order, what `collate "C"` gives for UTF-8 text. */
export function compareText(a: string, b: string): number {
  const x = Array.from(a, (c) => c.codePointAt(0)!);
  const y = Array.from(b, (c) => c.codePointAt(0)!);
  for (let i = 0; i < Math.min(x.length, y.length); i++) if (x[i] !== y[i]) return sign(x[i]! - y[i]!);
  return sign(x.length - y.length);
}

/** Exact order of two decimals written as numbers or numeric strings (no exponents), like `numeric`. */
export function compareDecimal(a: number | string, b: number | string): number {
  const parse = (v: number | string) => {
    const m = /^(-?)(\d+)(?:\.(\d+))?$/.exec(String(v));
    if (!m) throw new Error(`not a plain decimal: ${v}`);
    const int = m[2]!.replace(/^0+(?=\d)/, '');
    const frac = (m[3] ?? '').replace(/0+$/, '');
    const zero = /^0$/.test(int) && frac === '';
    return { neg: m[1] === '-' && !zero, int, frac };
  };
  const x = parse(a);
  const y = parse(b);
  if (x.neg !== y.neg) return x.neg ? -1 : 1;
  const magnitude =
    x.int.length !== y.int.length
      ? sign(x.int.length - y.int.length)
      : x.int !== y.int
        ? compareText(x.int, y.int)
        : compareText(x.frac.padEnd(y.frac.length, '0'), y.frac.padEnd(x.frac.length, '0'));
  return x.neg ? -magnitude : magnitude;
}

/** jsonb equality: numbers by value, objects regardless of key order. */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (typeof a === 'number' && typeof b === 'number') return compareDecimal(a, b) === 0;
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((x, i) => jsonEqual(x, b[i]));
  if (isObject(a) && isObject(b)) {
    const ka = Object.keys(a);
    return ka.length === Object.keys(b).length && ka.every((k) => k in b && jsonEqual(a[k], b[k]));
  }
  return a === b;
}

const RANK: Record<string, number> = { null: 0, string: 1, number: 2, boolean: 3 };
const rankOf = (v: unknown) => (v === null ? 0 : RANK[typeof v]);

/** jsonb order of two scalars: null < strings < numbers < booleans; containers are not modelled. */
export function compareJsonScalars(a: unknown, b: unknown): number {
  const ra = rankOf(a);
  const rb = rankOf(b);
  if (ra === undefined || rb === undefined) throw new Error('the order of JSON containers is not modelled');
  if (ra !== rb) return sign(ra - rb);
  if (typeof a === 'string') return compareText(a, b as string);
  if (typeof a === 'number') return compareDecimal(a, b as number);
  if (typeof a === 'boolean') return Number(a) - Number(b);
  return 0;
}

/** `a @> b`: at the top level an array also contains a bare scalar it holds. */
export function jsonContains(a: unknown, b: unknown, top = true): boolean {
  if (top && Array.isArray(a) && isScalar(b)) return a.some((x) => isScalar(x) && jsonEqual(x, b));
  if (isScalar(a) || isScalar(b)) return isScalar(a) && isScalar(b) && jsonEqual(a, b);
  if (Array.isArray(a) && Array.isArray(b))
    return b.every((e) =>
      isScalar(e)
        ? a.some((x) => isScalar(x) && jsonEqual(x, e))
        : a.some((x) => Array.isArray(x) === Array.isArray(e) && !isScalar(x) && jsonContains(x, e, false)),
    );
  if (isObject(a) && isObject(b))
    return Object.entries(b).every(([k, e]) => {
      if (!(k in a)) return false;
      const x = a[k];
      if (isScalar(e)) return isScalar(x) && jsonEqual(x, e);
      return !isScalar(x) && Array.isArray(x) === Array.isArray(e) && jsonContains(x, e, false);
    });
  return false;
}

/** `a ? key`: a key of an object, a string element of an array, or the string itself. */
export function jsonHasKey(a: unknown, key: string): boolean {
  if (isObject(a)) return Object.hasOwn(a, key);
  if (Array.isArray(a)) return a.some((x) => x === key);
  return a === key;
}

/** The text `#>>` gives for a scalar: strings bare, numbers and booleans as written. */
export function jsonText(v: unknown): string | null {
  if (v === null || v === undefined) return null;
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  throw new Error('the text of a JSON container is not modelled');
}
