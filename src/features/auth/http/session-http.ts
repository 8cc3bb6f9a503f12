import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppDeps } from '../../../deps.ts';
import { commandContext } from '../../../kernel/http/command-meta.ts';
import { SYSTEM_SITE } from '../../../kernel/tenancy/site.ts';
import type { UserRow } from '../../../../projections/users/index.ts';
import { RefreshHeaderMissing } from '../auth.errors.ts';
import { openSession, type LoginData, type SessionClient } from '../session.commands.ts';

export const REFRESH_COOKIE = 'svc_refresh';
const COOKIE_PATH = '/api/v1/auth';

/** The client a session is opened for: its user agent (bounded) and address. */
export const clientOf = (req: FastifyRequest): SessionClient => ({
  userAgent: req.headers['user-agent']?.slice(0, 300) ?? null,
  ip: req.ip,
});

/** Answers with a session's tokens, the refresh token also as the cookie; a challenge passes unchanged. */
export function withRefreshCookie<T extends object>(deps: Pick<AppDeps, 'config'>, reply: FastifyReply, login: T): T {
  if ('refreshToken' in login && typeof login.refreshToken === 'string')
    setRefreshCookie(deps, reply, login.refreshToken);
  return login;
}

/** Starts a session for the request's user and answers its tokens, also as the cookie (login steps and setup). */
export async function startSession(
  deps: AppDeps,
  req: FastifyRequest,
  reply: FastifyReply,
  user: UserRow,
  amr: string[],
): Promise<LoginData> {
  const ctx = commandContext(req, deps.clock, SYSTEM_SITE);
  return withRefreshCookie(deps, reply, await openSession(deps, ctx, { user, amr, client: clientOf(req) }));
}

export function setRefreshCookie(deps: Pick<AppDeps, 'config'>, reply: FastifyReply, token: string): void {
  const c = deps.config;
  void reply.setCookie(REFRESH_COOKIE, token, {
    httpOnly: true,
    secure: c.REFRESH_COOKIE_SECURE,
    sameSite: c.REFRESH_COOKIE_SAMESITE,
    domain: c.REFRESH_COOKIE_DOMAIN,
    path: COOKIE_PATH,
    maxAge: c.REFRESH_TOKEN_TTL_S,
  });
}

export function clearRefreshCookie(deps: Pick<AppDeps, 'config'>, reply: FastifyReply): void {
  const c = deps.config;
  void reply.clearCookie(REFRESH_COOKIE, {
    httpOnly: true,
    secure: c.REFRESH_COOKIE_SECURE,
    sameSite: c.REFRESH_COOKIE_SAMESITE,
    domain: c.REFRESH_COOKIE_DOMAIN,
    path: COOKIE_PATH,
  });
}

/**
 * The refresh token of a refresh or logout request: from the body, or else from the cookie, which then needs
 * the X-Svc-Refresh header (a cross-site form cannot send it: the CSRF guard).
 */
export function presentedRefresh(req: FastifyRequest, fromBody: string | undefined): string | null {
  if (fromBody) return fromBody;
  const cookie = req.cookies?.[REFRESH_COOKIE];
  if (!cookie) return null;
  if (!req.headers['x-svc-refresh']) throw new RefreshHeaderMissing();
  return cookie;
}
