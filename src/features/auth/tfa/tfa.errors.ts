import { defineError } from '../../../kernel/http/errors.ts';

/** The key that sealed the seed is not configured: fail closed, a recovery code still works. */
export const TfaKeyUnavailable = defineError(
  'TFA_KEY_UNAVAILABLE',
  'conflict',
  () => 'the key that sealed your two-factor seed is not configured; use a recovery code',
  () => ({ extensions: { reason: 'seed_key_missing' } }),
);

/** Setup needs ENCRYPTION_KEY: a seed is never stored in clear. */
export const EncryptionNotConfigured = defineError(
  'ENCRYPTION_NOT_CONFIGURED',
  'unavailable',
  () => 'two-factor setup needs ENCRYPTION_KEY on the server',
);

/** Setup is started while two-factor authentication is on. */
export const TfaAlreadyOn = defineError(
  'CONFLICT',
  'conflict',
  () => 'two-factor authentication is already on; remove it first',
);

/** A confirmation without a pending setup. */
export const SetupNotStarted = defineError('CONFLICT', 'conflict', () => 'start with POST /api/v1/me/tfa/setup');

/** Recovery codes or removal are asked for while two-factor authentication is off. */
export const TfaNotOn = defineError('CONFLICT', 'conflict', () => 'two-factor authentication is not on');

/** A challenge outlived its enrollment (removed meanwhile): a failed login, not a missing key. */
export const TfaOffAtChallenge = defineError(
  'UNAUTHENTICATED',
  'unauthenticated',
  () => 'two-factor authentication is not on',
);

/** A proof names both or neither of code and recoveryCode. */
export const OneProofRequired = defineError(
  'VALIDATION_FAILED',
  'invalid',
  () => 'send exactly one of code and recoveryCode',
  () => ({ path: ['code'] }),
);

/** A recovery code that matches none of the unspent ones. */
export const InvalidRecoveryCode = defineError(
  'UNAUTHENTICATED',
  'unauthenticated',
  () => 'invalid recovery code',
  () => ({ path: ['recoveryCode'] }),
);

/** A recovery code spent between its check and the append. */
export const RecoveryCodeSpent = defineError('UNAUTHENTICATED', 'unauthenticated', () => 'invalid recovery code');

/** A code of no time step near now. */
export const InvalidCode = defineError(
  'UNAUTHENTICATED',
  'unauthenticated',
  () => 'invalid code',
  () => ({ path: ['code'] }),
);

/** A code of a time step already accepted (the replay guard). */
export const CodeReused = defineError(
  'UNAUTHENTICATED',
  'unauthenticated',
  () => 'this code was already used; wait for the next one',
);

/** A login challenge answered twice. */
export const ChallengeAnswered = defineError(
  'UNAUTHENTICATED',
  'unauthenticated',
  () => 'this challenge was already answered; log in again',
);

/** A challenge token that is forged, expired, or of a user who cannot log in. */
export const InvalidChallenge = defineError(
  'UNAUTHENTICATED',
  'unauthenticated',
  () => 'the challenge is invalid or has expired; log in again',
);

/** The code confirming a setup does not match the new seed. */
export const CodeMismatch = defineError(
  'VALIDATION_FAILED',
  'invalid',
  () => 'the code does not match; try the current one',
  () => ({ path: ['code'] }),
);

/** Regenerating recovery codes takes a live code, not a recovery code. */
export const LiveCodeRequired = defineError(
  'VALIDATION_FAILED',
  'invalid',
  () => 'a live code is needed',
  () => ({ path: ['code'] }),
);

/** A policy needs a second factor and the caller has none enrolled. */
export const MfaEnrollmentRequired = defineError(
  'MFA_REQUIRED',
  'unauthenticated',
  () => 'a policy of yours needs two-factor authentication: enroll at /api/v1/me/tfa',
  () => ({ extensions: { reason: 'enroll_totp' } }),
);

/** A policy needs a second factor the session lacks: the answer carries a fresh login challenge. */
export const SecondFactorRequired = defineError<{ challengeToken: string; expiresIn: number }>(
  'UNAUTHENTICATED',
  'unauthenticated',
  () => 'a policy of yours needs your second factor: answer the challenge',
  (d) => ({ extensions: { status: 'mfa_required', challengeToken: d.challengeToken, expiresIn: d.expiresIn } }),
);
