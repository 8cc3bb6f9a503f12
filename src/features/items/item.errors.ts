import { DomainError } from '../../kernel/http/errors.ts';
import type { Dependent } from '../../../projections/item-documents/index.ts';

/**
 * A delete that restrict relations hold up: 409 DEPENDENT_RECORDS_EXIST. The dependents go both at the top of the
 * error body (the spec's "body has dependents array") and in the error's extensions.
 */
export function dependentRecordsExist(dependents: Dependent[]): DomainError {
  const count = dependents.filter((d) => d.onDelete === 'restrict').reduce((n, d) => n + d.count, 0);
  return new DomainError('DEPENDENT_RECORDS_EXIST', `${count} item(s) still point here`, {
    extensions: { dependents },
    body: { dependents },
  });
}
