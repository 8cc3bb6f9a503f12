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

/** The provider's API could not be reached, or answered something unusable (its words are not passed on). */
export const GitProviderFailed = defineError<{ reason: string }>(
  'GIT_PROVIDER_FAILED',
  'bad_gateway',
  (d) => `the git provider could not be used: ${d.reason}`,
  (d) => ({ extensions: { reason: d.reason } }),
);

/** The integration has no token to call its provider with (set one, or connect it through OAuth). */
export const GitTokenMissing = defineError<{ integrationId: string }>(
  'GIT_TOKEN_MISSING',
  'conflict',
  (d) => `git integration ${d.integrationId} has no token`,
);

/** The configured branch (or commit) is not in the repository. */
export const GitRefNotFound = defineError<{ ref: string }>(
  'GIT_REF_NOT_FOUND',
  'unprocessable',
  (d) => `${d.ref} is not a branch or commit of the repository`,
);

/** Intent files that could not be read as intents: every file's problem is listed, and nothing was applied. */
export const GitIntentsInvalid = defineError<{ files: { path: string; problem: string }[] }>(
  'GIT_INTENTS_INVALID',
  'unprocessable',
  (d) => `${String(d.files.length)} intent file(s) could not be used; nothing was applied`,
  (d) => ({ extensions: { files: d.files } }),
);

/**
 * No OAuth app is configured for the integration's provider and host (SVC_GIT_*_CLIENT_ID/SECRET, on the host of
 * SVC_GIT_*_OAUTH_URL).
 */
export const GitOAuthNotConfigured = defineError<{ provider: string }>(
  'GIT_OAUTH_NOT_CONFIGURED',
  'unavailable',
  (d) => `no OAuth app is configured for this ${d.provider} host`,
);

/** Only a person can connect a repository through OAuth (the token is given in their name). */
export const GitOAuthNeedsUser = defineError<Record<string, never>>(
  'PERMISSION_DENIED',
  'forbidden',
  () => 'connecting a repository through OAuth needs a signed-in user',
);

/**
 * The callback's state is missing, forged, expired, used already, from another browser than the one that asked for
 * it, or its user may no longer connect the integration.
 */
export const GitOAuthStateInvalid = defineError<{ reason: 'invalid' | 'expired' | 'used' | 'revoked' | 'browser' }>(
  'GIT_OAUTH_STATE_INVALID',
  'invalid',
  (d) => `the OAuth state is not usable (${d.reason})`,
  (d) => ({ extensions: { reason: d.reason } }),
);

/** A preview site follows its base's integration; it has none of its own. */
export const IntegrationOnPreview = defineError<Record<string, never>>(
  'CONFLICT',
  'conflict',
  () => 'a preview site has no git integrations of its own (its base site has them)',
);

/** An app was given (or kept) where it cannot act: apps are GitHub's, with `authMethod: app`. */
export const GitAppMisplaced = defineError<Record<string, never>>(
  'VALIDATION_FAILED',
  'invalid',
  () => 'an app is given for a GitHub integration with authMethod app',
  () => ({ path: ['body', 'app'] }),
);

/** A base URL the service could not call: a private, loopback or link-local address, or a name resolving to one. */
export const GitBaseUrlRefused = defineError<{ message: string; reason: string }>(
  'VALIDATION_FAILED',
  'invalid',
  (d) => `baseUrl: ${d.message}`,
  (d) => ({ path: ['body', 'baseUrl'], extensions: { reason: d.reason } }),
);
