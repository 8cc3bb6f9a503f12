import { defineError } from '../../kernel/http/errors.ts';

/** After setup, its endpoints answer like any unknown route. */
export const SetupDone = defineError('NOT_FOUND', 'not_found', () => 'not found');

/** Another setup claimed the instance and is still running. */
export const SetupInProgress = defineError('CONFLICT', 'conflict', () => 'setup is already in progress');

/** Completing a setup nobody started. */
export const SetupNotStarted = defineError('CONFLICT', 'conflict', () => 'setup was not started');

/** SVC_REQUIRE_SETUP_TOKEN is on but this node issued no token. */
export const SetupTokenNotIssued = defineError(
  'SETUP_TOKEN_NOT_ISSUED',
  'unavailable',
  () => 'no setup token was issued',
);

/** The setup token is missing or wrong. */
export const SetupTokenRequired = defineError(
  'UNAUTHENTICATED',
  'unauthenticated',
  () => 'a valid setupToken is required',
  () => ({ path: ['setupToken'] }),
);

/** The first site's id is not a valid site id. */
export const InvalidSetupSiteId = defineError(
  'VALIDATION_FAILED',
  'invalid',
  () => 'invalid site id',
  () => ({ path: ['siteId'] }),
);

/** The admin path is malformed or one the service already serves. */
export const InvalidAdminPath = defineError(
  'VALIDATION_FAILED',
  'invalid',
  () => 'adminPath must look like /my-admin and not be a reserved path',
  () => ({ path: ['adminPath'] }),
);
