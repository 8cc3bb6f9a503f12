import { createHash, timingSafeEqual } from 'node:crypto';
import { verify } from '@octokit/webhooks-methods';
import type { GitProvider } from '../../contracts/git/git.events.ts';

type Headers = Record<string, string | string[] | undefined>;
const one = (h: Headers, name: string): string | null => {
  const v = h[name];
  return typeof v === 'string' ? v : null;
};

/** Equal strings, compared in a time that does not depend on where they differ (digests make the lengths alike). */
const sameSecret = (a: string, b: string) =>
  timingSafeEqual(createHash('sha256').update(a).digest(), createHash('sha256').update(b).digest());

/**
 * Whether a delivery is the provider's, checked on the raw body before it is read: GitHub's
 * `X-Hub-Signature-256` (HMAC-SHA256 of the body under the secret, by @octokit/webhooks-methods, which compares in
 * constant time), GitLab's `X-Gitlab-Token` (the secret itself, compared in constant time).
 */
export async function verifyDelivery(
  provider: GitProvider,
  secret: string,
  body: Buffer,
  headers: Headers,
): Promise<boolean> {
  if (provider === 'gitlab') {
    const token = one(headers, 'x-gitlab-token');
    return token !== null && sameSecret(token, secret);
  }
  const signature = one(headers, 'x-hub-signature-256');
  if (!signature || !/^sha256=[0-9a-f]{64}$/.test(signature)) return false;
  try {
    return await verify(secret, body.toString('utf8'), signature);
  } catch {
    return false;
  }
}

/** The provider's delivery id and event name headers. */
export const DELIVERY_HEADERS: ReadonlyMap<GitProvider, { id: string; event: string }> = new Map([
  ['github', { id: 'x-github-delivery', event: 'x-github-event' }],
  ['gitlab', { id: 'x-gitlab-event-uuid', event: 'x-gitlab-event' }],
]);

/** A header value, when it is one string of 1 to 200 printable characters. */
export function deliveryHeader(headers: Headers, name: string): string | null {
  const v = one(headers, name);
  return v !== null && /^[\x21-\x7e][\x20-\x7e]{0,199}$/.test(v) ? v : null;
}
