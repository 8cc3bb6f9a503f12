import { FlowInvalid } from '../flow.errors.ts';

const ISO = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})?)?$/;

/** `asOf=<ISO 8601>`: a date or a date and time (UTC unless an offset is given), as the item history reads it. */
export function parseAsOf(v: string | undefined): Date | null {
  if (v === undefined) return null;
  if (!ISO.test(v) || Number.isNaN(Date.parse(v)))
    throw new FlowInvalid({
      message: 'asOf must be an ISO 8601 time, e.g. 2026-03-01T00:00:00Z',
      path: ['query', 'asOf'],
      reason: 'asOf',
    });
  return new Date(/[Zz]|[+-]\d{2}:?\d{2}$/.test(v) || !v.includes('T') ? v : `${v}Z`);
}
