/**
 * Keys that name members of Object.prototype. A key that arrives from a request, a stored event or a schema
 * must never be one of these when it becomes an object key: written into a plain object it reaches the
 * prototype (pollution), read from one it finds an inherited function instead of "absent".
 */
const FORBIDDEN = new Set(['__proto__', 'constructor', 'prototype']);

/** True for `__proto__`, `constructor` and `prototype`: refused at the edge wherever a key is user-chosen. */
export function isForbiddenKey(key: string): boolean {
  return FORBIDDEN.has(key);
}

/** True for any name an ordinary object inherits (`toString`, `hasOwnProperty`, `__proto__`, …). */
export function isInheritedName(key: string): boolean {
  return FORBIDDEN.has(key) || key in Object.prototype;
}

/** An object without a prototype: safe to index with any string, and `in`/lookups see only its own keys. */
export function dict<T>(): Record<string, T> {
  return Object.create(null) as Record<string, T>;
}

/** A prototype-less copy of `entries`, for maps built from user-chosen keys. */
export function dictFrom<T>(entries: Iterable<readonly [string, T]>): Record<string, T> {
  const out = dict<T>();
  for (const [k, v] of entries) out[k] = v;
  return out;
}

/** The own value of `key`, never an inherited one (`own({}, 'constructor')` is undefined). */
export function own<T>(obj: Readonly<Record<string, T>> | null | undefined, key: string): T | undefined {
  return obj != null && Object.hasOwn(obj, key) ? obj[key] : undefined;
}
