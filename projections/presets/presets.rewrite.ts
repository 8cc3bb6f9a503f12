import type { PresetQuery } from '../../src/contracts/presets/presets.events.ts';

/** Whether a field list or sort entry (`a`, `a.b`, `-a`) starts at the field. */
const startsAt = (entry: string, field: string) => entry.replace(/^-/, '').split('.')[0] === field;

/** The query without the field in `fields` and `sort`; a list left empty becomes null (the client's default). */
export function queryWithout(query: PresetQuery, field: string): PresetQuery {
  const drop = (list: string[] | null) => {
    if (list === null) return null;
    const kept = list.filter((x) => !startsAt(x, field));
    return kept.length ? kept : null;
  };
  return { ...query, fields: drop(query.fields), sort: drop(query.sort) };
}

/** Whether a filter names the field: a field key (or a dotted path from it) at any level of `_and` / `_or`. */
export function filterNames(filter: Record<string, unknown> | null, field: string): boolean {
  const stack: unknown[] = [filter];
  while (stack.length) {
    const f = stack.pop();
    if (!f || typeof f !== 'object') continue;
    for (const [key, value] of Object.entries(f)) {
      if (key === '_and' || key === '_or') {
        if (value && typeof value === 'object') stack.push(...Object.values(value));
      } else if (startsAt(key, field)) return true;
    }
  }
  return false;
}

/** Whether layout options name the field: as a key at any depth, or as a whole string value. */
export function optionsName(options: Record<string, unknown> | null, field: string): boolean {
  const stack: unknown[] = [options];
  while (stack.length) {
    const v = stack.pop();
    if (v === field) return true;
    if (!v || typeof v !== 'object') continue;
    if (Array.isArray(v)) stack.push(...(v as unknown[]));
    else
      for (const [key, inner] of Object.entries(v)) {
        if (key === field) return true;
        stack.push(inner);
      }
  }
  return false;
}

/** A preset as a field's deletion leaves it: the field leaves fields and sort; a filter or layout naming it is stale. */
export function afterFieldDeleted<
  P extends {
    query: PresetQuery;
    layoutOptions: Record<string, unknown> | null;
    stale: boolean;
    staleFields: string[];
  },
>(p: P, field: string): P {
  const names = filterNames(p.query.filter, field) || optionsName(p.layoutOptions, field);
  const staleFields = names && !p.staleFields.includes(field) ? [...p.staleFields, field] : p.staleFields;
  return { ...p, query: queryWithout(p.query, field), stale: p.stale || names, staleFields };
}
