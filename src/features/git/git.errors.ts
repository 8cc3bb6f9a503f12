import { defineError } from '../../kernel/http/errors.ts';

/** No integration of that id on the site (another site's answers alike). */
export const GitIntegrationNotFound = defineError<{ integrationId: string }>(
  'NOT_FOUND',
  'not_found',
  (d) => `git integration ${d.integrationId} not found`,
);

/**
 * A webhook delivery that could not be verified: a wrong or missing signature or token, an unknown integration or
 * one of another provider. All answer alike, before anything is written (spec: Git integration).
 */
export const InvalidSignature = defineError<Record<string, never>>(
  'INVALID_SIGNATURE',
  'unauthenticated',
  () => 'the webhook delivery could not be verified',
);

/** A verified delivery without the provider's delivery id, which makes redeliveries recognisable. */
export const DeliveryIdMissing = defineError<{ header: string }>(
  'VALIDATION_FAILED',
  'invalid',
  (d) => `the delivery has no ${d.header} header (1 to 200 characters)`,
  (d) => ({ path: ['headers', d.header] }),
);

/** A verified delivery whose body is not the JSON (or GitHub form) a provider sends. */
export const DeliveryPayloadInvalid = defineError<{ message: string }>(
  'VALIDATION_FAILED',
  'invalid',
  (d) => `the delivery's payload is not usable: ${d.message}`,
  () => ({ path: ['body'] }),
);
