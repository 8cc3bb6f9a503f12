import { defineError } from './errors.ts';

const SITE_HEADER = ['headers', 'x-svc-site'];

/** A route for callers reached without a (recognised) token. */
export const AuthenticationRequired = defineError(
  'UNAUTHENTICATED',
  'unauthenticated',
  () => 'authentication required',
);

/** An Authorization header that is not `Bearer <token>`. */
export const MalformedAuthorization = defineError(
  'UNAUTHENTICATED',
  'unauthenticated',
  () => 'the Authorization header must be "Bearer <token>"',
);

/** A write with a publishable key, which only reads. */
export const ReadOnlyKey = defineError('PERMISSION_DENIED', 'forbidden', () => 'a publishable key may only read');

/** An administration area reached while impersonating someone. */
export const NotWhileImpersonating = defineError(
  'PERMISSION_DENIED',
  'forbidden',
  () => 'not while impersonating: administration needs your own session',
);

/** A SCIM route reached without the SCIM token. */
export const ScimTokenRequired = defineError('PERMISSION_DENIED', 'forbidden', () => 'this area needs the SCIM token');

/** The SCIM token used outside /scim/v2/. */
export const ScimTokenOutsideScim = defineError(
  'PERMISSION_DENIED',
  'forbidden',
  () => 'the SCIM token is for /scim/v2/ only',
);

/** An administrators' area reached by someone else. */
export const AdministratorsOnly = defineError(
  'PERMISSION_DENIED',
  'forbidden',
  () => 'this area is for administrators',
);

/** A site administrators' area reached by another member of the site. */
export const SiteAdministratorsOnly = defineError(
  'PERMISSION_DENIED',
  'forbidden',
  () => 'this area is for site administrators',
);

/** The caller holds no role on the site the request names. */
export const NotASiteMember = defineError<{ siteId: string }>(
  'PERMISSION_DENIED',
  'forbidden',
  (d) => `you are not a member of site ${d.siteId}`,
);

/** A site-scoped route reached without X-Svc-Site (or a site host). */
export const SiteNotGiven = defineError(
  'VALIDATION_FAILED',
  'invalid',
  () => 'no site given: send X-Svc-Site',
  () => ({ path: SITE_HEADER }),
);

/** The site the request names is malformed or does not exist. */
export const UnknownSite = defineError<{ siteId: string }>(
  'SITE_NOT_FOUND',
  'not_found',
  (d) => `site ${d.siteId} not found`,
  () => ({ path: SITE_HEADER }),
);

/** A body sent as JSON that does not parse. */
export const MalformedJson = defineError<{ reason: string }>(
  'VALIDATION_FAILED',
  'invalid',
  (d) => `malformed JSON body: ${d.reason}`,
  () => ({ path: ['body'] }),
);

/** Input the edge refuses before authentication (prototype keys, NUL, lone surrogates, depth, non-finite numbers). */
export const RefusedInput = defineError<{ message: string; path: string[]; reason: string }>(
  'VALIDATION_FAILED',
  'invalid',
  (d) => d.message,
  (d) => ({ path: d.path, extensions: { reason: d.reason } }),
);

/** An If-Match header that names no record version. */
export const MalformedIfMatch = defineError(
  'VALIDATION_FAILED',
  'invalid',
  () => 'If-Match must be a record version',
  () => ({ path: ['headers', 'if-match'] }),
);

/** A bearer token no authenticator recognises. */
export const InvalidAccessToken = defineError('UNAUTHENTICATED', 'unauthenticated', () => 'invalid access token');

/** /metrics without the observability token, when one is configured. */
export const MetricsTokenRequired = defineError<{ header: string }>(
  'UNAUTHENTICATED',
  'unauthenticated',
  (d) => `send the metrics token in ${d.header}`,
);

/** A write names a field the caller's rule does not let it write. */
export const FieldNotWritable = defineError<{ field: string; path: string[] }>(
  'PERMISSION_DENIED',
  'forbidden',
  (d) => `you may not write ${d.field}`,
  (d) => ({ path: [...d.path, d.field] }),
);

/** A stream changed between the read and the append, and the command may not simply be retried. */
export const VersionConflict = defineError<{ streamId: string; expected: number; actual: number }>(
  'CONFLICT',
  'conflict',
  (d) => `the record was changed by someone else (expected version ${d.expected}, found ${d.actual})`,
  (d) => ({ extensions: { stream: d.streamId, expectedVersion: d.expected, actualVersion: d.actual } }),
);

/** The shared rate limiter cannot be reached and the service is set to fail closed. */
export const RateLimiterUnavailable = defineError(
  'RATE_LIMIT_UNAVAILABLE',
  'unavailable',
  () => 'the rate limiter is unavailable; retry with backoff',
  () => ({ headers: { 'retry-after': '5' } }),
);

/** A rate limit was exceeded: Retry-After and X-RateLimit-* say when to come back. */
export const RateLimited = defineError<{ message: string; retryAfter: number; headers: Record<string, string> }>(
  'RATE_LIMITED',
  'rate_limited',
  (d) => d.message,
  (d) => ({ extensions: { retryAfter: d.retryAfter }, headers: d.headers }),
);
