import { defineError } from '../../kernel/http/errors.ts';

/** Consents and restriction are a person's: an API key or a token without an account has none. */
export const PersonOnly = defineError(
  'PERMISSION_DENIED',
  'forbidden',
  () => 'consents and restriction of processing belong to a signed-in person, not to an API key or a service',
);

/** A consent type outside the spec's five. */
export const UnknownConsentType = defineError<{ type: string }>(
  'VALIDATION_FAILED',
  'invalid',
  (d) =>
    `unknown consent type ${JSON.stringify(d.type.slice(0, 50))}; one of marketing, analytics, personalization, functional, sale_share`,
  () => ({ path: ['params', 'type'] }),
);

/** The user is not a member of the active site (or does not exist): the same answer for both. */
export const UserNotMember = defineError<{ id: string }>(
  'RECORD_NOT_FOUND',
  'not_found',
  () => 'no such member of this site',
  () => ({ path: ['params', 'id'] }),
);
