import { defineError } from '../../kernel/http/errors.ts';

/** VAPID keys are unset: Web Push is off end to end (spec, delivery rule 4). */
export const PushNotConfigured = defineError<Record<string, never>>(
  'PUSH_NOT_CONFIGURED',
  'not_found',
  () => 'Web Push is not configured on this instance (VAPID keys unset)',
);

/** The caller has no subscription with that endpoint on the site. */
export const PushSubscriptionNotFound = defineError<Record<string, never>>(
  'NOT_FOUND',
  'not_found',
  () => 'no push subscription of yours with that endpoint on this site',
);

/** A push subscription is a signed-in user's browser's: an API key has none. */
export const PushNeedsUser = defineError<Record<string, never>>(
  'PERMISSION_DENIED',
  'forbidden',
  () => 'push subscriptions belong to signed-in users; an API key has none',
);

/** A user has as many subscriptions on the site as one may keep (`MAX_SUBSCRIPTIONS_PER_USER`). */
export const TooManySubscriptions = defineError<{ max: number }>(
  'CONFLICT',
  'conflict',
  (d) => `you have ${d.max} push subscriptions on this site already: remove one first`,
  (d) => ({ path: ['endpoint'], extensions: { reason: 'subscription_limit', max: d.max } }),
);

/** An endpoint no push may go to. */
export const InvalidPushEndpoint = defineError<{
  reason: 'not_a_url' | 'not_https' | 'credentials' | 'private_address';
}>(
  'VALIDATION_FAILED',
  'invalid',
  (d) =>
    d.reason === 'private_address'
      ? 'the endpoint is a private, loopback or link-local address'
      : d.reason === 'credentials'
        ? 'the endpoint may not carry credentials'
        : 'the endpoint must be an https URL',
  (d) => ({ path: ['endpoint'], extensions: { reason: d.reason } }),
);
