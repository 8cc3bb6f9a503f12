import { declareCodes, DomainError, defineError, type ErrorObject } from '../../kernel/http/errors.ts';
import type { Diff, Operation } from './plan.ts';

/** The planner's problem codes, answered in the `errors` of ManifestInvalid. */
declareCodes({
  UNSUPPORTED_MANIFEST_VERSION: 'unprocessable',
  DANGLING_REFERENCE: 'unprocessable',
  DUPLICATE_KEY: 'unprocessable',
});

/**
 * A manifest that cannot be planned: 422 with each problem's code (UNSUPPORTED_MANIFEST_VERSION, DANGLING_REFERENCE,
 * DUPLICATE_KEY, VALIDATION_FAILED, CONFLICT) and path in `errors`, and the spec's dry-run result in `data`.
 */
export class ManifestInvalid extends DomainError {
  constructor(d: { errors: ErrorObject[]; more: number; diff: Diff | null }) {
    const first = d.errors[0];
    super(first?.code ?? 'VALIDATION_FAILED', first?.message ?? 'the manifest is not valid', {
      kind: 'unprocessable',
      errors: d.errors,
      extensions: d.more ? { more: d.more } : {},
      body: { data: { valid: false, errors: d.errors, diff: d.diff } },
    });
  }
}

/** A plan with high-risk operations, applied without `allowDestructive=true`. */
export const DestructiveBlocked = defineError<{ operations: Operation[] }>(
  'DESTRUCTIVE_BLOCKED',
  'conflict',
  (d) =>
    `the plan drops data or changes types (${d.operations.length} high-risk operation${d.operations.length === 1 ? '' : 's'}); apply with allowDestructive=true`,
  (d) => ({ extensions: { operations: d.operations } }),
);
