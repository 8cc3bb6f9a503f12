import { describe, expect, it } from 'vitest';
import { DomainError, ERROR_KIND, ERROR_STATUS, KIND_STATUS, defineError } from './errors.ts';

/** The spec's table of codes and statuses ("Errors"), as the spec states them. */
const SPEC: Record<string, number> = {
  PERMISSION_DENIED: 403,
  RECORD_NOT_FOUND: 404,
  NOT_FOUND: 404,
  VALIDATION_FAILED: 400,
  CONFLICT: 409,
  RATE_LIMITED: 429,
  RATE_LIMIT_UNAVAILABLE: 503,
  SERVICE_UNAVAILABLE: 503,
  SITE_NOT_FOUND: 404,
  TOKEN_EXPIRED: 401,
  MFA_REQUIRED: 401,
  SKILL_DENIED: 403,
  HITL_REQUIRED: 202,
  ENCRYPTION_NOT_CONFIGURED: 503,
  TFA_KEY_UNAVAILABLE: 409,
  ENCRYPTION_KEY_MISSING: 503,
  ISSUER_ALREADY_EXISTS: 409,
  DESTRUCTIVE_BLOCKED: 409,
  DEPENDENT_RECORDS_EXIST: 409,
  FIELD_REQUIRED: 409,
  INVALID_TARGET: 422,
  EMPTY_RELEASE: 422,
  ALREADY_PUBLISHED: 409,
  RELEASE_IMMUTABLE: 409,
  ITEM_NOT_FOUND: 404,
  REVISION_STAGED: 409,
  GRAPH_DANGLING_EDGE: 400,
  GRAPH_CYCLE: 400,
  GRAPH_NO_ENTRY: 400,
  GRAPH_UNKNOWN_OPERATION: 400,
  CRON_INVALID: 400,
  CRON_REQUIRED: 400,
  WEBHOOK_NOT_CONFIGURED: 401,
  UNAUTHENTICATED: 401,
  PUSH_NOT_CONFIGURED: 404,
  INVALID_SIGNATURE: 401,
  SETUP_TOKEN_NOT_ISSUED: 503,
};

describe('error kinds', () => {
  it('give every code of the spec the status the spec states', () => {
    for (const [code, status] of Object.entries(SPEC))
      expect([code, ERROR_STATUS[code as keyof typeof ERROR_STATUS]]).toEqual([code, status]);
  });

  it('decide the status of every code through the one kind map', () => {
    for (const [code, kind] of Object.entries(ERROR_KIND))
      expect(new DomainError(code as keyof typeof ERROR_KIND, 'x').status).toBe(KIND_STATUS[kind]);
  });

  it('let a slice declare an error once, with its code, kind, message and details', () => {
    const AlreadyPublished = defineError<{ releaseId: string }>(
      'ALREADY_PUBLISHED',
      'conflict',
      (d) => `release ${d.releaseId} is already published`,
      (d) => ({ extensions: { releaseId: d.releaseId } }),
    );
    const err = new AlreadyPublished({ releaseId: 'r1' });
    expect(err).toBeInstanceOf(DomainError);
    expect(err).toBeInstanceOf(AlreadyPublished);
    expect(err.status).toBe(409);
    expect(err.toErrorObjects()).toEqual([
      {
        code: 'ALREADY_PUBLISHED',
        message: 'release r1 is already published',
        path: [],
        extensions: { releaseId: 'r1' },
      },
    ]);
  });

  it('let a slice answer a shared code as another kind (422 validation on releases, issuers and config)', () => {
    const Unprocessable = defineError<string>('VALIDATION_FAILED', 'unprocessable', (m) => m);
    expect(new Unprocessable('bad window').status).toBe(422);
    expect(new DomainError('VALIDATION_FAILED', 'bad').status).toBe(400);
  });
});
