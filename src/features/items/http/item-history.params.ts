import { z } from 'zod';
import { InvalidQueryParameter } from '../item-query.errors.ts';

const bad = (message: string, key: string) => new InvalidQueryParameter({ key, message });
const ISO = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})?)?$/;

/** `asOf=<ISO 8601>`: a date or a date and time (UTC unless an offset is given); anything else is 400. */
export function parseAsOf(raw: Record<string, unknown>): Date | null {
  const v = raw.asOf;
  if (v === undefined) return null;
  if (typeof v !== 'string' || !ISO.test(v) || Number.isNaN(Date.parse(v)))
    throw bad('asOf must be an ISO 8601 time, e.g. 2026-03-01T00:00:00Z', 'asOf');
  return new Date(/[Zz]|[+-]\d{2}:?\d{2}$/.test(v) || !v.includes('T') ? v : `${v}Z`);
}

/** `version=<n>`: the item as of its n-th event. */
export function parseVersion(raw: Record<string, unknown>): number | null {
  const v = raw.version;
  if (v === undefined) return null;
  // A number once the route's querystring schema has coerced it, the text otherwise.
  const n = typeof v === 'number' || typeof v === 'string' ? Number(v) : NaN;
  if (!Number.isInteger(n) || n < 1) throw bad('version must be a positive integer', 'version');
  return n;
}

/** `withDeleted=true`: soft-deleted items too. */
export function parseWithDeleted(raw: Record<string, unknown>): boolean {
  const v = raw.withDeleted;
  if (v === undefined || v === 'false') return false;
  if (v === 'true') return true;
  throw bad('withDeleted must be true or false', 'withDeleted');
}

/** A page of revisions: `limit` with `offset`, or `page`. */
export const RevisionPage = z.object({
  limit: z.coerce.number().int().min(1).max(200).default(25),
  offset: z.coerce.number().int().min(0).default(0),
  page: z.coerce.number().int().min(1).optional(),
});
export const revisionPage = (q: z.infer<typeof RevisionPage>) => ({
  limit: q.limit,
  offset: q.page ? (q.page - 1) * q.limit : q.offset,
});
