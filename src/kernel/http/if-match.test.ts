import type { FastifyRequest } from 'fastify';
import { describe, expect, it } from 'vitest';
import type { DomainError } from './errors.ts';
import { ifMatchVersion } from './if-match.ts';

const withHeader = (value?: string) =>
  ({ headers: value === undefined ? {} : { 'if-match': value } }) as FastifyRequest;

describe('ifMatchVersion', () => {
  it('reads a record version bare, quoted or weak', () => {
    expect([
      ifMatchVersion(withHeader('3')),
      ifMatchVersion(withHeader('"3"')),
      ifMatchVersion(withHeader('W/"3"')),
    ]).toEqual([3, 3, 3]);
  });

  it('takes no header and * alike: any current version', () => {
    expect(ifMatchVersion(withHeader())).toBeUndefined();
    expect(ifMatchVersion(withHeader('*'))).toBeUndefined();
  });

  it('refuses what names no version with VALIDATION_FAILED on the header', () => {
    for (const bad of ['abc', '-1', '1.5', '"x"']) {
      const err = (() => {
        try {
          ifMatchVersion(withHeader(bad));
        } catch (e) {
          return e as DomainError;
        }
      })();
      expect(err?.toErrorObjects()).toEqual([
        {
          code: 'VALIDATION_FAILED',
          message: 'If-Match must be a record version',
          path: ['headers', 'if-match'],
          extensions: {},
        },
      ]);
      expect(err?.status).toBe(400);
    }
  });
});
