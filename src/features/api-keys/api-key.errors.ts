import { defineError } from '../../kernel/http/errors.ts';

type Key = { keyId: string };

/** The key does not exist on the site. */
export const ApiKeyNotFound = defineError<Key>('NOT_FOUND', 'not_found', (d) => `API key ${d.keyId} not found`);

/** A create names a key id that exists. */
export const ApiKeyExists = defineError<Key>('CONFLICT', 'conflict', (d) => `API key ${d.keyId} already exists`);

/** The key's role is neither a system role nor a custom role of the site. */
export const UnknownKeyRole = defineError<{ role: string }>(
  'VALIDATION_FAILED',
  'invalid',
  (d) => `unknown role ${d.role}`,
  () => ({ path: ['role'] }),
);

/** A key never carries a stronger role than the one who makes it. */
export const KeyRoleAboveCreator = defineError<{ creatorRole: string; role: string }>(
  'PERMISSION_DENIED',
  'forbidden',
  (d) => `a ${d.creatorRole} may not create a key with role ${d.role}`,
);

/** A publishable key lives in browsers, so its role only reads. */
export const PublishableKeyRole = defineError<{ readRoles: readonly string[] }>(
  'VALIDATION_FAILED',
  'invalid',
  (d) => `a publishable key may only carry a read role (${d.readRoles.join(', ')})`,
  () => ({ path: ['role'] }),
);

/** A publishable key without the origins it may be used from. */
export const PublishableKeyWithoutOrigins = defineError(
  'VALIDATION_FAILED',
  'invalid',
  () => 'a publishable key needs allowedOrigins',
  () => ({ path: ['allowedOrigins'] }),
);

/** Origins on a secret key, which servers use without one. */
export const OriginsOnSecretKey = defineError(
  'VALIDATION_FAILED',
  'invalid',
  () => 'allowedOrigins is for publishable keys only',
  () => ({ path: ['allowedOrigins'] }),
);

/** A key that would expire at once. */
export const ExpiryInThePast = defineError(
  'VALIDATION_FAILED',
  'invalid',
  () => 'expiresAt must be in the future',
  () => ({ path: ['expiresAt'] }),
);

/** Any bad key (malformed, unknown, wrong secret, revoked, expired): one answer, so a caller learns nothing. */
export const InvalidApiKey = defineError('UNAUTHENTICATED', 'unauthenticated', () => 'invalid API key');

/** A publishable key sent from an origin it does not allow. */
export const OriginNotAllowed = defineError(
  'PERMISSION_DENIED',
  'forbidden',
  () => 'this key may not be used from this origin',
);
