import type { DataChain, TemplatePath } from './flow-template.ts';
import { lookup } from './flow-template.ts';
import { isForbiddenKey } from '../../kernel/safe/keys.ts';

/** The item filter language's limits (spec "Limits"): 100 clauses, dotted paths 8 deep; groups nest 16 deep. */
export const CONDITION_LIMITS = { clauses: 100, pathDepth: 8, nesting: 16 } as const;

/** A condition that is not a filter of the language: where, and why. */
export class ConditionError extends Error {
  constructor(
    message: string,
    readonly path: string[],
  ) {
    super(message);
    this.name = 'ConditionError';
  }
}

/** A compiled condition: evaluate it against a run's data chain; `paths` are the places it reads. */
export interface Condition {
  test(chain: DataChain): boolean;
  paths: TemplatePath[];
}

type Test = (v: unknown) => boolean;
const isNull = (v: unknown) => v === undefined || v === null;
const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((x, i) => jsonEqual(x, b[i]));
  if (!isObject(a) || !isObject(b)) return false;
  const ka = Object.keys(a);
  return ka.length === Object.keys(b).length && ka.every((k) => Object.hasOwn(b, k) && jsonEqual(a[k], b[k]));
}

/** jsonb's `@>`: every key of b is in a with a contained value; every element of an array b is in some element of a. */
function contains(a: unknown, b: unknown): boolean {
  if (Array.isArray(b)) return Array.isArray(a) && b.every((y) => a.some((x) => contains(x, y)));
  if (isObject(b)) return isObject(a) && Object.keys(b).every((k) => Object.hasOwn(a, k) && contains(a[k], b[k]));
  return Array.isArray(a) ? a.some((x) => jsonEqual(x, b)) : jsonEqual(a, b);
}

const text = (v: unknown) => (typeof v === 'string' ? v : JSON.stringify(v));
const comparable = (a: unknown, b: unknown) =>
  (typeof a === 'number' && typeof b === 'number') || (typeof a === 'string' && typeof b === 'string');
const cmp = (a: unknown, b: unknown) => ((a as number | string) < (b as number | string) ? -1 : a === b ? 0 : 1);
const hasKey = (v: unknown, k: string) =>
  isObject(v) ? Object.hasOwn(v, k) : Array.isArray(v) && v.some((x) => x === k);

/** One operator and its argument, checked once; the test it gives runs per evaluation. */
function operator(op: string, arg: unknown, at: string[]): Test {
  const need = (ok: boolean, what: string) => {
    if (!ok) throw new ConditionError(`${op} takes ${what}`, at);
  };
  const scalar = typeof arg === 'number' || typeof arg === 'string';
  const strings = Array.isArray(arg) && arg.every((x) => typeof x === 'string');
  switch (op) {
    case '_eq':
      return (v) => !isNull(v) && jsonEqual(v, arg);
    case '_neq':
      return (v) => isNull(v) || !jsonEqual(v, arg);
    case '_lt':
    case '_lte':
    case '_gt':
    case '_gte': {
      need(scalar, 'a number or a string');
      const pass =
        op === '_lt'
          ? (c: number) => c < 0
          : op === '_lte'
            ? (c: number) => c <= 0
            : op === '_gt'
              ? (c: number) => c > 0
              : (c: number) => c >= 0;
      return (v) => comparable(v, arg) && pass(cmp(v, arg));
    }
    case '_in':
    case '_nin': {
      need(Array.isArray(arg), 'a list');
      const list = arg as unknown[];
      return op === '_in'
        ? (v) => !isNull(v) && list.some((x) => jsonEqual(v, x))
        : (v) => isNull(v) || !list.some((x) => jsonEqual(v, x));
    }
    case '_null':
    case '_nnull':
      need(typeof arg === 'boolean', 'true or false');
      return (v) => isNull(v) === ((op === '_null') === arg);
    case '_contains':
    case '_icontains':
    case '_starts_with':
    case '_ends_with': {
      need(typeof arg === 'string', 'a string');
      const s = arg as string;
      if (op === '_icontains') return (v) => !isNull(v) && text(v).toLowerCase().includes(s.toLowerCase());
      if (op === '_contains') return (v) => !isNull(v) && text(v).includes(s);
      return (v) => !isNull(v) && (op === '_starts_with' ? text(v).startsWith(s) : text(v).endsWith(s));
    }
    case '_between': {
      need(Array.isArray(arg) && arg.length === 2 && comparable(arg[0], arg[1]), 'two numbers or two strings');
      const [lo, hi] = arg as [unknown, unknown];
      return (v) => comparable(v, lo) && cmp(v, lo) >= 0 && cmp(v, hi) <= 0;
    }
    case '_json_contains':
      return (v) => !isNull(v) && contains(v, arg);
    case '_has_key':
      need(typeof arg === 'string', 'a string');
      return (v) => hasKey(v, arg as string);
    case '_has_any_keys':
    case '_has_all_keys': {
      need(strings, 'a list of strings');
      const keys = arg as string[];
      return op === '_has_any_keys' ? (v) => keys.some((k) => hasKey(v, k)) : (v) => keys.every((k) => hasKey(v, k));
    }
    default:
      throw new ConditionError(`unknown operator ${op.slice(0, 64)}`, at);
  }
}

const HEAD = /^(\$trigger|\$last|[A-Za-z][A-Za-z0-9_-]{0,63})$/;
const SEGMENT = /^[A-Za-z0-9_]{1,128}$/;

/**
 * The path a key leads to from `prefix` (null at the top, where the key's first part is `$trigger`, `$last` or a node
 * id): a key is one part (nested form) or several joined by dots. Prototype names are refused: a path the evaluator
 * could only ever read as absent is a mistake or an attack, and is answered at save with its place.
 */
function extend(prefix: TemplatePath | null, key: string, here: string[]): TemplatePath {
  const parts = key.split('.');
  if (parts.some(isForbiddenKey))
    throw new ConditionError(
      `${key.slice(0, 100)} names an object prototype member (__proto__, constructor, prototype)`,
      here,
    );
  const head = prefix ? null : parts.shift()!;
  const path = prefix
    ? { head: prefix.head, segments: [...prefix.segments, ...parts] }
    : { head: head!, segments: parts };
  if ((head !== null && !HEAD.test(head)) || !parts.every((p) => SEGMENT.test(p)))
    throw new ConditionError(`${key.slice(0, 100)} is not a path of $trigger, $last or a node`, here);
  if (path.segments.length > CONDITION_LIMITS.pathDepth)
    throw new ConditionError(`a path has at most ${CONDITION_LIMITS.pathDepth} keys after its head`, here);
  return path;
}

/**
 * Compiles a `condition` operation's filter: the item filter language (spec "Filter operators", same limits) over
 * the data chain instead of an item. Paths are written as the item filter writes them, dotted
 * (`{ "$last.status": { "_eq": "published" } }`) or nested (`{ "$last": { "status": { "_eq": "published" } } }`), or
 * both at once; the first key is `$trigger`, `$last` or a node id. `_and` and `_or` take lists, at the top or inside a
 * nested path (their filters then continue it). Evaluated in memory, reading own properties only; compiling checks
 * everything, so a condition that compiled never throws when it runs.
 */
export function compileCondition(filter: unknown): Condition {
  let clauses = 0;
  const paths: TemplatePath[] = [];
  type Eval = (chain: DataChain) => boolean;
  const group = (f: unknown, prefix: TemplatePath | null, at: string[]): Eval => {
    if (!isObject(f)) throw new ConditionError('expected a filter object', at);
    if (at.length > CONDITION_LIMITS.nesting * 2) throw new ConditionError('the filter is nested too deeply', at);
    const parts: Eval[] = [];
    for (const key of Object.keys(f)) {
      const here = [...at, key];
      const value = f[key];
      if (key === '_and' || key === '_or') {
        if (!Array.isArray(value)) throw new ConditionError(`${key} takes a list of filters`, here);
        const inner = value.map((x, i) => group(x, prefix, [...here, String(i)]));
        parts.push(key === '_and' ? (c) => inner.every((g) => g(c)) : (c) => inner.some((g) => g(c)));
      } else if (key.startsWith('_')) {
        if (!prefix) throw new ConditionError(`${key.slice(0, 64)} needs a path of $trigger, $last or a node`, here);
        if (++clauses > CONDITION_LIMITS.clauses)
          throw new ConditionError(`a filter has at most ${CONDITION_LIMITS.clauses} clauses`, at);
        const t = operator(key, value, here);
        const path = prefix;
        if (paths.at(-1) !== path) paths.push(path);
        parts.push((c) => t(lookup(c, path)));
      } else {
        const path = extend(prefix, key, here);
        if (!isObject(value) || !Object.keys(value).length)
          throw new ConditionError(`${key.slice(0, 100)} needs an operator object such as {"_eq": …}`, here);
        parts.push(group(value, path, here));
      }
    }
    return (c) => parts.every((p) => p(c));
  };
  return { test: group(filter, null, []), paths };
}
