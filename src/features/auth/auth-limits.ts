import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../../config.ts';
import type { AddressHasher } from '../../contracts/auth/address-hash.ts';
import { enforceRate } from '../../platform/rate-limit/enforce.ts';
import type { RateLimiter, RateRule } from '../../kernel/rate-limit/limiter.ts';

/**
 * The public auth endpoints' limits (the spec leaves the numbers open, except recovery: 3 per IP per hour).
 * Keys name the IP or a hash of the address, never the address itself.
 */
export function authRules(config: Config) {
  const perIp = (max: number, windowS: number): RateRule => ({ max, windowS });
  return {
    loginIp: perIp(config.SVC_LOGIN_MAX_PER_IP, 300),
    /** Failed logins per address: past it the address is locked for the rest of the window (lockout). */
    loginFailures: perIp(config.SVC_LOGIN_MAX_FAILURES, 900),
    register: perIp(config.SVC_REGISTER_MAX_PER_IP, 3600),
    resend: perIp(config.SVC_RECOVERY_MAX_PER_IP, 3600),
    recovery: perIp(config.SVC_RECOVERY_MAX_PER_IP, 3600),
    reset: perIp(config.SVC_LOGIN_MAX_PER_IP, 3600),
    totpIp: perIp(config.SVC_TOTP_MAX_ATTEMPTS * 4, 300),
    totpUser: perIp(config.SVC_TOTP_MAX_ATTEMPTS, 300),
  };
}

export type AuthRules = ReturnType<typeof authRules>;

export const limitByIp = (
  limiter: RateLimiter,
  req: FastifyRequest,
  reply: FastifyReply,
  name: string,
  rule: RateRule,
) => enforceRate(limiter, reply, [{ key: `auth:${name}:ip:${req.ip}`, rule }]);

/** The failed-login counter of an address, kept whether or not it has an account (a lockout reveals nothing). */
export const loginFailuresKey = (addresses: AddressHasher, email: string) => `auth:login:acct:${addresses.hash(email)}`;
