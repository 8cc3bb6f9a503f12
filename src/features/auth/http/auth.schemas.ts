import { z } from 'zod';

/** The spec's user profile. */
export const Profile = z
  .object({
    id: z.string(),
    email: z.string().nullable(),
    firstName: z.string().nullable(),
    lastName: z.string().nullable(),
    avatar: z.null(),
  })
  .meta({ id: 'UserProfile' });

/** A session: the access token, its lifetime in seconds, the rotating refresh token (also set as a cookie). */
export const Session = z
  .object({ token: z.string(), expiresIn: z.number().int(), refreshToken: z.string(), user: Profile })
  .meta({ id: 'Session' });

/** The answer to a TOTP-enrolled user's first factor: verify-totp takes the challenge. */
export const MfaChallenge = z
  .object({ status: z.literal('mfa_required'), challengeToken: z.string(), expiresIn: z.number().int() })
  .meta({ id: 'MfaChallenge' });

export const LoginResult = z.union([Session, MfaChallenge]);

/** The caller's profile with its memberships (site id → role) and how the session was authenticated. */
export const Me = Profile.extend({
  instanceAdmin: z.boolean(),
  sites: z.record(z.string(), z.string()),
  amr: z.array(z.string()),
});

/** The generic answer of sign-up and recovery requests: it never tells whether an address exists. */
export const Accepted = z.object({ accepted: z.boolean(), message: z.string() });

/** A live session, redacted: never its tokens. */
export const SessionRecord = z
  .object({
    id: z.string(),
    userId: z.string(),
    amr: z.array(z.string()),
    userAgent: z.string().nullable(),
    ip: z.string().nullable(),
    createdAt: z.string(),
    lastUsedAt: z.string(),
    expiresAt: z.string(),
  })
  .meta({ id: 'SessionRecord' });

/** Preferences are the client's own blob: every key is kept. */
export const Preferences = z.record(z.string(), z.unknown());

/** With a site named, the values in effect there (saveAction falls back to the site's default). */
export const PreferencesMeta = z.object({
  site: z.string().optional(),
  effective: z.object({ saveAction: z.unknown() }).optional(),
});

/** A queued mail as the outbox keeps it: sentAt and lastError stay null until the sender delivers or fails it. */
export const OutboxEntry = z
  .object({
    id: z.string(),
    siteId: z.string(),
    to: z.string(),
    subject: z.string(),
    body: z.string(),
    /** What the mail is for (verify-email, reset-password, account-exists, invite …). */
    kind: z.string(),
    createdAt: z.string(),
    sentAt: z.string().nullable(),
    attempts: z.number().int(),
    lastError: z.string().nullable(),
  })
  .meta({ id: 'OutboxEntry' });

const Supported = z.object({ supported: z.boolean() });

/** RFC 7644 §5 ServiceProviderConfig (sent as application/scim+json, not in the `{ data }` envelope). */
export const ScimServiceProviderConfig = z
  .object({
    schemas: z.array(z.string()),
    patch: Supported,
    bulk: Supported.extend({ maxOperations: z.number().int(), maxPayloadSize: z.number().int() }),
    filter: Supported.extend({ maxResults: z.number().int() }),
    changePassword: Supported,
    sort: Supported,
    etag: Supported,
    authenticationSchemes: z.array(z.object({ type: z.string(), name: z.string(), description: z.string() })),
  })
  .meta({ id: 'ScimServiceProviderConfig', description: 'What this SCIM service provider supports' });
