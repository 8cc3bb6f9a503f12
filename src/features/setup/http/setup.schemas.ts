import { z } from 'zod';

/** The first site, as the sites slice answers it (null only if it is not yet readable). */
const FirstSite = z.object({
  id: z.string(),
  name: z.string(),
  settings: z.record(z.string(), z.unknown()),
  createdAt: z.string(),
  updatedAt: z.string(),
  version: z.number().int(),
});

/** The administrator's profile (the spec's user profile). */
const AdminProfile = z.object({
  id: z.string(),
  email: z.string().nullable(),
  firstName: z.string().nullable(),
  lastName: z.string().nullable(),
  avatar: z.null(),
});

/**
 * What completing setup answers: the first site and a session of its administrator, as a login does (the access
 * token, its lifetime in seconds, the refresh token, also set as a cookie, and the profile).
 */
export const SetupResult = z.object({
  site: FirstSite.nullable(),
  token: z.string(),
  expiresIn: z.number().int(),
  refreshToken: z.string(),
  user: AdminProfile,
});

/** What setup can offer before it runs. */
export const SetupCapabilities = z.object({
  setupComplete: z.boolean(),
  encryption: z.object({ available: z.boolean() }),
});
