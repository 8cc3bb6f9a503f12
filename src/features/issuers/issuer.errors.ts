import { defineError } from '../../kernel/http/errors.ts';

type Issuer = { issuerId: string };

/** The trusted issuer does not exist on the site (or was removed). */
export const IssuerNotFound = defineError<Issuer>(
  'NOT_FOUND',
  'not_found',
  (d) => `trusted issuer ${d.issuerId} not found`,
);

/** A register names an issuer id that exists. */
export const IssuerExists = defineError<Issuer>('CONFLICT', 'conflict', (d) => `trusted issuer ${d.issuerId} exists`);

/** The issuer's `iss` moved between the caller's read and its write: the client tries again. */
export const IssuerChangedMeanwhile = defineError(
  'CONFLICT',
  'conflict',
  () => 'the trusted issuer was changed by someone else; try again',
);

/** Another issuer of the site holds the `iss` value: the first claim wins. */
export const IssuerAlreadyExists = defineError<Issuer & { iss: string }>(
  'ISSUER_ALREADY_EXISTS',
  'conflict',
  (d) => `issuer ${d.iss} is already registered on this site`,
  (d) => ({ path: ['body', 'issuer'], extensions: { issuerId: d.issuerId } }),
);

/** Whom the whole service trusts is the instance's call, not a site admin's. */
export const IssuersForInstanceAdmins = defineError(
  'PERMISSION_DENIED',
  'forbidden',
  () => 'trusted issuers are managed by instance administrators',
);

/** A key source the service may not fetch from (not https in production, or a private address): 422. */
export const UnsafeKeySource = defineError<{ key: string; reason: string; message: string }>(
  'VALIDATION_FAILED',
  'unprocessable',
  (d) => `${d.key}: ${d.message}`,
  (d) => ({ path: ['body', d.key], extensions: { reason: d.reason } }),
);

/** An external issuer's token past its expiry. */
export const ExternalTokenExpired = defineError(
  'TOKEN_EXPIRED',
  'unauthenticated',
  () => 'the token of the external issuer has expired',
);

/** An external issuer's token whose signature, audience, algorithm or dates do not check out. */
export const ExternalTokenUnverified = defineError(
  'UNAUTHENTICATED',
  'unauthenticated',
  () => 'the token of the external issuer could not be verified',
);

/** An external issuer's token whose subject claim is missing or empty. */
export const ExternalTokenWithoutSubject = defineError(
  'UNAUTHENTICATED',
  'unauthenticated',
  () => 'the token of the external issuer names no subject',
);

/** An external issuer's token whose site claim names another site. */
export const TokenForAnotherSite = defineError('PERMISSION_DENIED', 'forbidden', () => 'the token is for another site');

/** No role claim of an external token maps to a role on the site. */
export const NoMappedRole = defineError(
  'PERMISSION_DENIED',
  'forbidden',
  () => 'no role of the token maps to a role on this site',
);
