import { isForbiddenKey } from '../../kernel/safe/keys.ts';

/** Deepest nesting of objects and arrays a JSON input may have (documents, filters, layouts all stay far below). */
export const MAX_JSON_DEPTH = 64;

/** Longest path parameter the router accepts; longer ones answer 414 in the envelope. */
export const MAX_PARAM_LENGTH = 200;

export interface InputProblem {
  path: string[];
  reason: 'forbidden_key' | 'nul' | 'lone_surrogate' | 'too_deep' | 'not_finite';
  message: string;
}

/** A string PostgreSQL can store and every client can read: no NUL, no unpaired UTF-16 surrogate. */
export function stringProblem(s: string): InputProblem['reason'] | null {
  if (s.includes('\u0000')) return 'nul';
  if (!(s as string & { isWellFormed(): boolean }).isWellFormed()) return 'lone_surrogate';
  return null;
}

const MESSAGES = new Map<InputProblem['reason'], string>(
  Object.entries({
    forbidden_key: 'the key names an object prototype member (__proto__, constructor, prototype)',
    nul: 'the text contains a NUL character',
    lone_surrogate: 'the text contains an unpaired UTF-16 surrogate',
    too_deep: `the value nests deeper than ${MAX_JSON_DEPTH} levels`,
    not_finite: 'the number is out of range',
  }) as [InputProblem['reason'], string][],
);

const problem = (path: string[], reason: InputProblem['reason']): InputProblem => ({
  path,
  reason,
  message: MESSAGES.get(reason)!,
});

/**
 * The first problem of a parsed JSON value, walked without recursion (a hostile body may nest 10 000 deep):
 * prototype-named keys, NUL or lone surrogates in keys and strings, non-finite numbers, excessive depth.
 */
export function inspectJson(value: unknown, root: string[], maxDepth = MAX_JSON_DEPTH): InputProblem | null {
  const stack: { v: unknown; path: string[]; depth: number }[] = [{ v: value, path: root, depth: 0 }];
  while (stack.length) {
    const { v, path, depth } = stack.pop()!;
    if (typeof v === 'string') {
      const p = stringProblem(v);
      if (p) return problem(path, p);
    } else if (typeof v === 'number') {
      if (!Number.isFinite(v)) return problem(path, 'not_finite');
    } else if (v !== null && typeof v === 'object') {
      if (depth >= maxDepth) return problem(path, 'too_deep');
      if (Array.isArray(v)) v.forEach((x, i) => stack.push({ v: x, path: [...path, String(i)], depth: depth + 1 }));
      else {
        for (const key of Object.keys(v)) {
          const at = [...path, key];
          if (isForbiddenKey(key)) return problem(at, 'forbidden_key');
          const p = stringProblem(key);
          if (p) return problem(at, p);
          stack.push({ v: (v as Record<string, unknown>)[key], path: at, depth: depth + 1 });
        }
      }
    }
  }
  return null;
}

/** Segments of a query key such as `filter[a.b][_eq]` or `deep[links][fields]`: `filter`, `a`, `b`, `_eq`, … */
export function querySegments(key: string): string[] {
  return key.split(/[[\].]+/).filter(Boolean);
}

/** Names inside list-valued parameters (`fields=a.b,-c`, `sort=-title`, `groupBy=x`): each dotted part. */
export function listNames(value: string): string[] {
  return value
    .split(',')
    .flatMap((item) => item.trim().replace(/^-/, '').split('.'))
    .filter(Boolean);
}

const LIST_PARAMS = new Set(['fields', 'sort', 'groupBy', 'group_by']);

/**
 * The first problem of a parsed query string: prototype-named segments in keys (`filter[__proto__][x][_eq]`) or in
 * the names of list parameters, NUL and lone surrogates in keys and values.
 */
export function inspectQuery(query: Record<string, unknown>): InputProblem | null {
  for (const key of Object.keys(query)) {
    const at = ['query', key];
    const kp = stringProblem(key);
    if (kp) return problem(at, kp);
    if (querySegments(key).some(isForbiddenKey)) return problem(at, 'forbidden_key');
    const raw = query[key];
    for (const v of Array.isArray(raw) ? raw : [raw]) {
      if (typeof v !== 'string') continue;
      const vp = stringProblem(v);
      if (vp) return problem(at, vp);
      const base = querySegments(key)[0] ?? key;
      if ((LIST_PARAMS.has(key) || base === 'aggregate') && listNames(v).some(isForbiddenKey))
        return problem(at, 'forbidden_key');
    }
  }
  return null;
}

/**
 * Why a path parameter's value is refused before any route reads it (a prototype-named id, NUL, a lone surrogate),
 * or null. Ids and keys a caller chooses are checked with the same rule when they are made (`CallerKey`).
 */
export function paramProblem(v: string): InputProblem['reason'] | null {
  return isForbiddenKey(v) ? 'forbidden_key' : stringProblem(v);
}

/** The first problem of the path parameters: prototype-named ids, NUL and lone surrogates. */
export function inspectParams(params: Record<string, unknown>): InputProblem | null {
  for (const [key, v] of Object.entries(params)) {
    if (typeof v !== 'string') continue;
    const p = paramProblem(v);
    if (p) return problem(['params', key], p);
  }
  return null;
}

/** The message of a refusal reason, for checks that report it elsewhere (`CallerKey`). */
export const problemMessage = (reason: InputProblem['reason']): string => MESSAGES.get(reason)!;
