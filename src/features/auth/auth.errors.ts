import { defineError } from '../../kernel/http/errors.ts';

type User = { userId: string };
type Session = { sessionId: string };

/** A login names an unknown address or the wrong password: one answer for both, so neither is revealed. */
export const InvalidCredentials = defineError('UNAUTHENTICATED', 'unauthenticated', () => 'invalid email or password');

/** The password was right but the address is not verified yet. */
export const EmailNotVerified = defineError(
  'PERMISSION_DENIED',
  'forbidden',
  () => 'verify your email address first: see the link we sent',
  () => ({ extensions: { reason: 'email_not_verified' } }),
);

/** A refresh token that is forged, of an unknown or ended session, or of a generation never issued. */
export const InvalidRefreshToken = defineError(
  'UNAUTHENTICATED',
  'unauthenticated',
  () => 'invalid or expired refresh token',
);

/** A refresh ended its session (expired, or the password changed since): the same answer, and the cookie goes. */
export const RefreshEndedSession = defineError(
  'UNAUTHENTICATED',
  'unauthenticated',
  () => 'invalid or expired refresh token',
);

/** A rotated refresh token came back: someone holds a copy, so its whole session was ended. */
export const RefreshTokenReused = defineError(
  'UNAUTHENTICATED',
  'unauthenticated',
  () => 'this refresh token was already used: the session has been ended for safety',
);

/** A logout names a refresh token that is not one of ours. */
export const UnreadableRefreshToken = defineError('UNAUTHENTICATED', 'unauthenticated', () => 'invalid refresh token');

/** A refresh without a refresh token in the body or the cookie. */
export const NoRefreshToken = defineError(
  'UNAUTHENTICATED',
  'unauthenticated',
  () => 'no refresh token: send refreshToken or the cookie',
);

/** A logout names no session: no refresh token, and no bearer with a session. */
export const NoSessionToEnd = defineError(
  'UNAUTHENTICATED',
  'unauthenticated',
  () => 'no session to end: send refreshToken or the cookie',
);

/** The refresh cookie came without X-Svc-Refresh, which a cross-site form cannot send (the CSRF guard). */
export const RefreshHeaderMissing = defineError(
  'PERMISSION_DENIED',
  'forbidden',
  () => 'a cookie refresh token needs the X-Svc-Refresh header',
  () => ({ path: ['headers', 'x-svc-refresh'] }),
);

/** A session id was started twice. */
export const SessionExists = defineError('CONFLICT', 'conflict', () => 'session exists');

/** The session does not exist, or is not one the caller may see. */
export const SessionNotFound = defineError<Session>(
  'NOT_FOUND',
  'not_found',
  (d) => `session ${d.sessionId} not found`,
);

/** A site admin reaches for the sessions of an account that other sites share. */
export const SessionsOfOtherSites = defineError(
  'PERMISSION_DENIED',
  'forbidden',
  () => 'this account belongs to other sites too: only its owner or an instance administrator manages its sessions',
);

/** The access token's lifetime is over: the client refreshes. */
export const AccessTokenExpired = defineError(
  'TOKEN_EXPIRED',
  'unauthenticated',
  () => 'the access token has expired; refresh and retry',
);

/** The access token is not one of ours (signature, audience or shape). */
export const InvalidAccessToken = defineError('UNAUTHENTICATED', 'unauthenticated', () => 'invalid access token');

/** A genuine access token whose user, token version or session is no longer live. */
export const StaleAccessToken = defineError(
  'UNAUTHENTICATED',
  'unauthenticated',
  () => 'the access token is no longer valid',
);

/** The profile is asked for by a caller that is not a user (an API key, SCIM). */
export const NoProfile = defineError('PERMISSION_DENIED', 'forbidden', () => 'only users have a profile');

/** An account setting is reached by a caller that is not a signed-in user. */
export const NoAccount = defineError('PERMISSION_DENIED', 'forbidden', () => 'only a signed-in user has an account');

/** An impersonating administrator reaches for the member's account settings. */
export const AccountWhileImpersonating = defineError(
  'PERMISSION_DENIED',
  'forbidden',
  () => 'not while impersonating: the account belongs to its owner',
);

/** The token's user was erased meanwhile. */
export const UserGone = defineError('UNAUTHENTICATED', 'unauthenticated', () => 'the user no longer exists');

/** A sensitive step's password check failed. */
export const WrongPassword = defineError<{ path: string[] }>(
  'UNAUTHENTICATED',
  'unauthenticated',
  () => 'the password is not correct',
  (d) => ({ path: d.path }),
);

/** A new password breaks the password policy. */
export const WeakPassword = defineError<{ rules: string[]; path: string[] }>(
  'VALIDATION_FAILED',
  'invalid',
  (d) => `password too weak: ${d.rules.join('; ')}`,
  (d) => ({ path: d.path, extensions: { reason: 'password_policy', rules: d.rules } }),
);

/** A verification link that is forged, expired or of an erased user. */
export const InvalidLink = defineError(
  'VALIDATION_FAILED',
  'invalid',
  () => 'this link is invalid or has expired',
  () => ({ path: ['token'], extensions: { reason: 'invalid_token' } }),
);

/** A password or invitation link that is forged, expired, used, or not for this account. */
export const UsedOrInvalidLink = defineError(
  'VALIDATION_FAILED',
  'invalid',
  () => 'this link is invalid, used or expired',
  () => ({ path: ['token'], extensions: { reason: 'invalid_token' } }),
);

/** A reset names a password version that changed since the link was made. */
export const ResetLinkSpent = defineError(
  'VALIDATION_FAILED',
  'invalid',
  () => 'this reset link was already used or is no longer valid',
  () => ({ path: ['token'] }),
);

/** A sign-up on a site that does not accept public registration. */
export const SignUpClosed = defineError<{ siteId: string }>(
  'PERMISSION_DENIED',
  'forbidden',
  (d) => `site ${d.siteId} does not accept sign-ups`,
);

/** Another identity claimed the address first. */
export const EmailTaken = defineError('CONFLICT', 'conflict', () => 'this email address is already taken');

/** The user id is taken. */
export const UserExists = defineError<User>('CONFLICT', 'conflict', (d) => `user ${d.userId} already exists`);

/** The user does not exist, or is not one the caller may see. */
export const UserNotFound = defineError<User>('NOT_FOUND', 'not_found', (d) => `user ${d.userId} not found`);

/** A concurrent first request bound the external identity to a user. */
export const ExternalIdentityBound = defineError(
  'CONFLICT',
  'conflict',
  () => 'this external identity is already bound to a user',
);

/** An external token without an address cannot provision a user. */
export const ExternalEmailRequired = defineError(
  'PERMISSION_DENIED',
  'forbidden',
  () => 'the token carries no email address to provision a user with',
  () => ({ extensions: { reason: 'email_required' } }),
);

/** An external identity's address belongs to another account, which is never linked to it. */
export const ExternalEmailTaken = defineError(
  'PERMISSION_DENIED',
  'forbidden',
  () => 'another account already uses this email address',
  () => ({ extensions: { reason: 'email_taken' } }),
);

/** The person was erased already: the first erasure's proof stands. */
export const AlreadyErased = defineError<{ userId: string }>(
  'CONFLICT',
  'conflict',
  () => 'this person was erased already',
  () => ({ path: ['userId'] }),
);
