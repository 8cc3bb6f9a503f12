import type { FastifyRequest } from 'fastify';
import { DomainError } from './errors.ts';

/**
 * The record version a write's If-Match names (`3`, `"3"` or `W/"3"`), or undefined without the header: the write
 * then retries on a concurrent change; with it, a stale version answers 409 CONFLICT.
 */
export function ifMatchVersion(req: FastifyRequest): number | undefined {
  const h = req.headers['if-match'];
  if (h === undefined) return undefined;
  const v = Number(String(h).replace(/^W\//, '').replace(/"/g, ''));
  if (!Number.isInteger(v) || v < 0)
    throw new DomainError('VALIDATION_FAILED', 'If-Match must be a record version', { path: ['headers', 'if-match'] });
  return v;
}
