import { InvalidQueryParameter } from './item-query.errors.ts';
import { dict, isForbiddenKey } from '../../kernel/safe/keys.ts';

type Raw = Record<string, string | string[] | undefined>;
const one = (v: string | string[] | undefined) => (Array.isArray(v) ? v[v.length - 1] : v);
const bad = (message: string, key: string) => new InvalidQueryParameter({ key, message });

/**
 * Bracket-form values: true/false, null, clean numbers (no leading zeros) become typed; all else stays a string.
 * A number a double cannot hold exactly (9007199254740993) stays a string too, so that numeric fields still compare it
 * exactly.
 */
export function coerce(v: string): unknown {
  if (v === 'true') return true;
  if (v === 'false') return false;
  if (v === 'null') return null;
  const n = Number(v);
  const digits = v.includes('.') ? v.replace(/\.?0+$/, '') : v;
  if (/^-?(0|[1-9]\d*)(\.\d+)?$/.test(v) && String(n) === digits) return n;
  return v;
}

const ARRAY_OPS = new Set(['_in', '_nin', '_between', '_has_any_keys', '_has_all_keys']);

/** `filter[a][_eq]=1&filter[_and][0][b][_gt]=2` → a nested filter; malformed keys are ignored (spec rule 5). */
export function bracketFilter(raw: Raw): Record<string, unknown> | null {
  let out: Record<string, unknown> | null = null;
  // Segments are the caller's words: nodes have no prototype, and prototype names are refused (also at the edge).
  for (const [key, value] of Object.entries(raw)) {
    if (!key.startsWith('filter[')) continue;
    const m = /^filter((?:\[[^[\]]+\])+)$/.exec(key);
    if (!m) continue;
    const segments = [...m[1]!.matchAll(/\[([^[\]]+)\]/g)].map((x) => x[1]!);
    if (segments.some(isForbiddenKey)) throw bad('filter keys must not name prototype members', key);
    const op = segments[segments.length - 1]!;
    if (!op.startsWith('_') || segments.length < 2) continue;
    const v = one(value) ?? '';
    const parsed = ARRAY_OPS.has(op) ? v.split(',').map(coerce) : coerce(v);
    out ??= dict();
    let node = out;
    for (const s of segments.slice(0, -1)) node = (node[s] ??= dict()) as Record<string, unknown>;
    node[op] = parsed;
  }
  return out;
}
