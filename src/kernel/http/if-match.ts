import type { FastifyRequest } from 'fastify';
import { MalformedIfMatch } from './kernel.errors.ts';

/**
 * The record version a write's If-Match names (`3`, `"3"` or `W/"3"`), or undefined without the header: the write
 * then retries on a concurrent change; with it, a stale version answers 409 CONFLICT.
 */
export function ifMatchVersion(req: FastifyRequest): number | undefined {
  const h = req.headers['if-match'];
  // `*` is any current version: the same as no header.
  if (h === undefined || h === '*') return undefined;
  const v = Number(String(h).replace(/^W\//, '').replace(/"/g, ''));
  if (!Number.isInteger(v) || v < 0) throw new MalformedIfMatch();
  return v;
}
