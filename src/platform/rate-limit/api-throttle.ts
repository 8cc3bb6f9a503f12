import type { FastifyInstance } from 'fastify';
import { rateHeaders, rateLimited } from './enforce.ts';
import type { RateLimiter, RateRule } from '../../kernel/rate-limit/limiter.ts';

export interface ApiThrottleOptions {
  limiter: RateLimiter;
  rule: RateRule;
  disabled: boolean;
}

/**
 * The authenticated API's throttle (spec "Limits"): every site-scoped request counts against its principal on its
 * site — the user, else the API key, else the client IP — `max` per `windowS`. Every answer carries
 * X-RateLimit-Limit/-Remaining/-Reset; past the limit 429 RATE_LIMITED with Retry-After. Runs after authentication
 * and tenancy (it needs both), so it is registered after them.
 */
export function installApiThrottle(app: FastifyInstance, opts: ApiThrottleOptions): void {
  if (opts.disabled) return;
  app.addHook('onRequest', async (req, reply) => {
    if (!req.site) return;
    const principal = req.actor ? `${req.actor.type}:${req.actor.id}` : `ip:${req.ip}`;
    const v = await opts.limiter.hit(`api:${req.site.id}:${principal}`, opts.rule);
    if (!v.allowed) throw rateLimited(v, `too many requests: ${opts.rule.max} per ${opts.rule.windowS} s`);
    void reply.headers(rateHeaders(v));
  });
}
