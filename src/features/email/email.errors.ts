import { defineError } from '../../kernel/http/errors.ts';

/** DELETE of an address the site has not suppressed. */
export const NotSuppressed = defineError(
  'NOT_FOUND',
  'not_found',
  () => 'this address is not suppressed',
  () => ({
    path: ['email'],
  }),
);

/** An unsubscribe request without a token (neither in the query nor in the form body). */
export const UnsubscribeTokenMissing = defineError(
  'VALIDATION_FAILED',
  'invalid',
  () => 'the unsubscribe token is missing: send it as ?token= or in the form body',
  () => ({ path: ['query', 'token'], extensions: { reason: 'required' } }),
);

/** The query and the form body name two different tokens. */
export const UnsubscribeTokenAmbiguous = defineError(
  'VALIDATION_FAILED',
  'invalid',
  () => 'two different unsubscribe tokens: send one',
  () => ({ path: ['body', 'token'], extensions: { reason: 'ambiguous' } }),
);

/**
 * Not a token the service signed for unsubscribing (another key, another algorithm, `none`, another audience, bad
 * claims, garbage). Says nothing of any address.
 */
export const InvalidUnsubscribeToken = defineError(
  'UNAUTHENTICATED',
  'unauthenticated',
  () => 'this unsubscribe link is not valid',
  () => ({ path: ['token'], extensions: { reason: 'invalid_token' } }),
);

/** A genuine token for a site that does not exist (any more). */
export const UnsubscribeSiteUnknown = defineError(
  'UNAUTHENTICATED',
  'unauthenticated',
  () => 'this unsubscribe link is for a site that does not exist',
  () => ({ path: ['token'], extensions: { reason: 'unknown_site' } }),
);

/** An address that cannot be one (see `addressProblem`): 400 with the path of the field. */
export const InvalidAddress = defineError<{ path: string[]; reason: string; message: string }>(
  'VALIDATION_FAILED',
  'invalid',
  (d) => d.message,
  (d) => ({ path: d.path, extensions: { reason: d.reason } }),
);
