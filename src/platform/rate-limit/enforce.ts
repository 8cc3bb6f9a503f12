import type { FastifyReply } from 'fastify';
import type { RateLimiter, RateRule, RateVerdict } from '../../kernel/rate-limit/limiter.ts';
import { RateLimited } from '../../kernel/http/kernel.errors.ts';

/** The X-RateLimit-* headers of a verdict (also sent on allowed answers, so clients can pace themselves). */
export function rateHeaders(v: RateVerdict): Record<string, string> {
  return {
    'x-ratelimit-limit': String(v.limit),
    'x-ratelimit-remaining': String(v.remaining),
    'x-ratelimit-reset': String(v.resetS),
  };
}

export const rateLimited = (v: RateVerdict, message = 'too many requests; retry later') =>
  new RateLimited({
    message,
    retryAfter: v.resetS,
    headers: { ...rateHeaders(v), 'retry-after': String(v.resetS) },
  });

/**
 * Counts a request against each rule in turn (e.g. per IP, then per account) and answers 429 RATE_LIMITED
 * with Retry-After and X-RateLimit-* on the first one exceeded. The tightest verdict's headers go on the reply.
 */
export async function enforceRate(
  limiter: RateLimiter,
  reply: FastifyReply,
  checks: { key: string; rule: RateRule }[],
): Promise<void> {
  let tightest: RateVerdict | null = null;
  for (const { key, rule } of checks) {
    const v = await limiter.hit(key, rule);
    if (!v.allowed) throw rateLimited(v);
    if (!tightest || v.remaining < tightest.remaining) tightest = v;
  }
  if (tightest) void reply.headers(rateHeaders(tightest));
}
