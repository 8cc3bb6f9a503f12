import { describe, expect, it } from 'vitest';
import { DomainError, KERNEL_CODES, KIND_STATUS, defineError } from './errors.ts';

describe('error kinds', () => {
  it('decide the status of every kernel code through the one kind map', () => {
    for (const [code, kind] of Object.entries(KERNEL_CODES))
      expect(new DomainError(code, 'x').status).toBe(KIND_STATUS[kind]);
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
