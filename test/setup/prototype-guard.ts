import { afterAll, afterEach } from 'vitest';

/**
 * Fails the test that leaves Object.prototype or Array.prototype (or Function.prototype) with a key it did not
 * have at start: prototype pollution from user-chosen keys must never go unnoticed, wherever it happens.
 */
const watched = [Object.prototype, Array.prototype, Function.prototype] as const;
const names = ['Object.prototype', 'Array.prototype', 'Function.prototype'];
const before = watched.map((p) => new Set(Reflect.ownKeys(p)));

function added(): string[] {
  const out: string[] = [];
  watched.forEach((proto, i) => {
    for (const key of Reflect.ownKeys(proto)) {
      if (before[i]!.has(key)) continue;
      out.push(`${names[i]}.${String(key)}`);
      // Remove it, so that one polluting test does not fail every later one.
      delete (proto as unknown as Record<PropertyKey, unknown>)[key];
    }
  });
  return out;
}

afterEach(() => {
  const keys = added();
  if (keys.length) throw new Error(`prototype polluted: ${keys.join(', ')}`);
});

afterAll(() => {
  const keys = added();
  if (keys.length) throw new Error(`prototype polluted: ${keys.join(', ')}`);
});
