/**
 * What an admin path may be, at setup and at every later change: one lower-case segment of 3 to 63 letters, digits,
 * `-` or `_` after the slash (so no `..`, no `//`, no percent-encoding, no upper case), and none of the first
 * segments the service serves itself or keeps for later.
 */
export const ADMIN_PATH_PATTERN = /^\/[a-z0-9][a-z0-9_-]{2,62}$/;

/** First path segments the studio can never take: the service's own, and those the spec names for later. */
export const RESERVED_PATHS: ReadonlySet<string> = new Set([
  '/admin',
  '/studio',
  '/api',
  '/health',
  '/metrics',
  '/setup',
  '/scim',
  '/graphql',
  '/mcp',
]);

/** Whether `path` may be the admin path. */
export const isValidAdminPath = (path: string): boolean => ADMIN_PATH_PATTERN.test(path) && !RESERVED_PATHS.has(path);
