import type { AppDeps } from '../../deps.ts';
import { SITE_ID_PATTERN } from '../../kernel/tenancy/site.ts';
import { findSite } from '../../../projections/sites/index.ts';
import { addressProblem } from './address.ts';
import { InvalidUnsubscribeToken, UnsubscribeSiteUnknown } from './email.errors.ts';

/** Longest token read: a genuine one is about 200 characters plus the address. */
const MAX_TOKEN = 2048;

/**
 * The unsubscribe token (spec "Authentication" rule 9): a stateless HS256 JWT `{ siteId, email }` under JWT_SECRET,
 * without expiry (a link in a mail must keep working), audience `email-unsubscribe` (so it never acts as any other
 * token). The same site and address always give the same token.
 */
export const unsubscribeToken = (deps: Pick<AppDeps, 'tokens'>, siteId: string, email: string): Promise<string> =>
  deps.tokens.issueLasting('email-unsubscribe', { siteId, email });

/** The absolute one-click address of a token: `SVC_PUBLIC_URL` (default `http://localhost:PORT`) + the route. */
export async function unsubscribeUrl(
  deps: Pick<AppDeps, 'tokens' | 'config'>,
  siteId: string,
  email: string,
): Promise<string> {
  const base = (deps.config.SVC_PUBLIC_URL ?? `http://localhost:${deps.config.PORT}`).replace(/\/+$/, '');
  const token = await unsubscribeToken(deps, siteId, email);
  return `${base}/api/v1/email/unsubscribe?token=${encodeURIComponent(token)}`;
}

/**
 * The site and address of a genuine token of an existing site; otherwise 401 (INVALID_TOKEN or UNKNOWN_SITE reason).
 * Only the signature, the algorithm (HS256), the audience (none, or `email-unsubscribe`), the absence of a `sub` and
 * the claims' shapes are read: nothing about the address.
 */
export async function readUnsubscribeToken(
  deps: Pick<AppDeps, 'tokens' | 'db'>,
  token: string,
): Promise<{ siteId: string; email: string; siteName: string }> {
  const claims = token.length <= MAX_TOKEN ? await deps.tokens.verifyLasting('email-unsubscribe', token) : null;
  const siteId = claims?.siteId;
  const email = claims?.email;
  if (typeof siteId !== 'string' || typeof email !== 'string' || !SITE_ID_PATTERN.test(siteId) || addressProblem(email))
    throw new InvalidUnsubscribeToken();
  const site = await findSite(deps.db, siteId);
  if (!site) throw new UnsubscribeSiteUnknown();
  return { siteId, email, siteName: site.name };
}
