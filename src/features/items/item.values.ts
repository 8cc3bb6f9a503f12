import type { CollectionSchema } from './item.reads.ts';
import { relationOn } from '../../../projections/schema/index.ts';
import { own } from '../../kernel/safe/keys.ts';
import { envelopeKeyId } from '../../platform/crypto/envelope.ts';
import { personalSubject } from '../../platform/privacy/pii.ts';
import type { ErrorObject } from '../../kernel/http/errors.ts';
import type { FieldDef } from '../../contracts/schema/schema.types.ts';

/** System values every item may carry besides its collection's fields. */
const SYSTEM: Record<string, (v: unknown) => string | null> = {
  status: (v) => (typeof v === 'string' && v.length <= 100 ? null : 'must be a string of at most 100 characters'),
  sort: (v) => (Number.isSafeInteger(v) ? null : 'must be an integer'),
};

const DATE = /^\d{4}-\d{2}-\d{2}$/;
const TIME = /^\d{2}:\d{2}(:\d{2}(\.\d+)?)?$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const NUMERIC = /^-?\d+(\.\d+)?$/;
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T([01]\d|2[0-3]):[0-5]\d(:[0-5]\d(\.\d{1,9})?)?(Z|[+-]([01]\d|2[0-3]):?[0-5]\d)?$/;

/** A calendar day that exists (no 30 February), in years 1 to 9999, as PostgreSQL accepts it. */
function realDay(ymd: string): boolean {
  const [y, m, d] = ymd.split('-').map(Number) as [number, number, number];
  const t = new Date(Date.UTC(2000, m - 1, d));
  t.setUTCFullYear(y);
  return y >= 1 && t.getUTCFullYear() === y && t.getUTCMonth() === m - 1 && t.getUTCDate() === d;
}

/** Why a value does not fit a field's type, or null when it does. */
export function typeProblem(f: FieldDef, v: unknown): string | null {
  // An encrypted field holds the envelope its plaintext was sealed into, after that plaintext was checked.
  if (f.encrypted && envelopeKeyId(v)) return null;
  // So does a personal field, with its value sealed for the item's subject.
  if (f.personal && personalSubject(v)) return null;
  switch (f.type) {
    case 'string':
      // Short by contract: strings are indexed for filters and sorts (use text for long values).
      return typeof v === 'string' && v.length <= 500 ? null : 'must be a string of at most 500 characters';
    case 'text':
    case 'hash':
    case 'csv':
      return typeof v === 'string' ? null : 'must be a string';
    case 'integer':
      return Number.isSafeInteger(v) && Math.abs(v as number) <= 2_147_483_647 ? null : 'must be a 32-bit integer';
    case 'bigInteger':
      return Number.isSafeInteger(v) || (typeof v === 'string' && /^-?\d{1,19}$/.test(v)) ? null : 'must be an integer';
    case 'decimal':
      return (typeof v === 'number' && Number.isFinite(v)) || (typeof v === 'string' && NUMERIC.test(v))
        ? null
        : 'must be a number';
    case 'boolean':
      return typeof v === 'boolean' ? null : 'must be true or false';
    case 'json':
      return null;
    case 'uuid':
      return typeof v === 'string' && UUID.test(v) ? null : 'must be a UUID';
    case 'date':
      return typeof v === 'string' && DATE.test(v) && realDay(v) ? null : 'must be a date (YYYY-MM-DD)';
    case 'datetime':
    case 'timestamp':
      return typeof v === 'string' && DATE_TIME.test(v) && realDay(v.slice(0, 10)) && !Number.isNaN(Date.parse(v))
        ? null
        : 'must be an ISO 8601 date and time';
    case 'time':
      return typeof v === 'string' && TIME.test(v) ? null : 'must be a time (HH:MM[:SS])';
    case 'geometry':
      return v !== null && typeof v === 'object' && typeof (v as { type?: unknown }).type === 'string'
        ? null
        : 'must be a GeoJSON geometry';
    case 'enum':
      return typeof v === 'string' && (f.choices ?? []).includes(v)
        ? null
        : `must be one of: ${(f.choices ?? []).join(', ')}`;
  }
}

/**
 * Every problem with a set of values, each with its field path. `full` (create, replace) also checks required
 * fields; a partial update checks only what it sends, and may not write readonly fields.
 */
export function valueProblems(
  fields: FieldDef[],
  values: Record<string, unknown>,
  mode: 'full' | 'partial',
): ErrorObject[] {
  const byName = new Map(fields.map((f) => [f.field, f]));
  const problems: ErrorObject[] = [];
  const add = (field: string, message: string, reason: string) =>
    problems.push({ code: 'VALIDATION_FAILED', message: `${field} ${message}`, path: [field], extensions: { reason } });
  for (const [key, v] of Object.entries(values)) {
    const system = own(SYSTEM, key);
    if (system) {
      const p = v === null ? null : system(v);
      if (p) add(key, p, 'type');
      continue;
    }
    const f = byName.get(key);
    if (!f) {
      add(key, 'is not a field of this collection', 'unknown_field');
      continue;
    }
    if (mode === 'partial' && f.readonly) add(key, 'is read-only', 'readonly');
    if (v === null) {
      if (!f.nullable || f.required) add(key, 'may not be null', 'null');
      continue;
    }
    const p = typeProblem(f, v);
    if (p) add(key, p, 'type');
  }
  if (mode === 'full') {
    for (const f of fields) if (f.required && !Object.hasOwn(values, f.field)) add(f.field, 'is required', 'required');
  }
  return problems;
}

/** Values for a new item: defaults for the fields not given. */
export function withDefaults(fields: FieldDef[], values: Record<string, unknown>): Record<string, unknown> {
  const out = { ...values };
  for (const f of fields)
    if (!(f.field in out) && f.default !== null && f.default !== undefined) out[f.field] = f.default;
  return out;
}

/**
 * A written record as answers show it: every field of the collection present, `null` where it has no value
 * (as reads show it; o2m and m2m fields hold no value of their own and stay out). Hidden fields go later.
 */
export function withNullFields<T extends Record<string, unknown>>(s: CollectionSchema, record: T): T {
  const out: Record<string, unknown> = { ...record };
  for (const f of s.fields) {
    if (Object.hasOwn(out, f.field)) continue;
    const kind = relationOn(s.schema, s.collection.name, f.field)?.kind;
    if (kind === 'o2m' || kind === 'm2m') continue;
    Object.defineProperty(out, f.field, { value: null, enumerable: true, writable: true, configurable: true });
  }
  return out as T;
}
