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
