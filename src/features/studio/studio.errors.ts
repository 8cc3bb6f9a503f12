import { defineError } from '../../kernel/http/errors.ts';

/** The admin path is malformed or one the service keeps for itself (the setup wizard's rule). */
export const InvalidAdminPath = defineError(
  'VALIDATION_FAILED',
  'invalid',
  () => 'adminPath must look like /my-admin and not be a reserved path',
  () => ({ path: ['adminPath'] }),
);

/** The admin path cannot move before setup chose the first one. */
export const SetupNotComplete = defineError('NOT_FOUND', 'not_found', () => 'not found');
