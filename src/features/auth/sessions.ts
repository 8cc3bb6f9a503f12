import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppDeps } from '../../deps.ts';
import { actorRef } from '../../kernel/auth/actor.ts';
import type { EventMetadata } from '../../kernel/es/event.ts';
import { handleCommand } from '../../kernel/es/handle-command.ts';
import { commandMeta } from '../../kernel/http/command-meta.ts';
import { newId } from '../../kernel/ids.ts';
import { seal } from '../../kernel/privacy/pii.ts';
import { SYSTEM_SITE } from '../../kernel/tenancy/site.ts';
import { findUserById, toProfile, type UserRow } from '../../../projections/users/index.ts';
import { findSessionOwner, liveSessions } from '../../../projections/sessions/index.ts';
import { sessionDecider } from './session.decider.ts';
import { sessionStream, type RevokeReason, type SessionEvent } from './session.events.ts';
import { InvalidRefreshToken, RefreshEndedSession, RefreshHeaderMissing, RefreshTokenReused } from './auth.errors.ts';

export const REFRESH_COOKIE = 'svc_refresh';
const COOKIE_PATH = '/api/v1/auth';

/** What login, verify-totp and setup answer: the spec's login result plus the refresh token. */
export interface LoginData {
  token: string;
  expiresIn: number;
  refreshToken: string;
  user: ReturnType<typeof toProfile>;
}

/** Event metadata for a change the user makes about their own identity (instance-level stream). */
export const userMeta = (req: FastifyRequest, deps: AppDeps, userId: string): EventMetadata => ({
  ...commandMeta(req, SYSTEM_SITE, deps.clock.now()),
  actor: req.actor ? actorRef(req.actor) : { type: 'user', id: userId },
});

/** Starts a session (a refresh-token family) and answers with the access and refresh tokens, also as a cookie. */
export async function startSession(
  deps: AppDeps,
  req: FastifyRequest,
  reply: FastifyReply,
  user: UserRow,
  amr: string[],
): Promise<LoginData> {
  const sessionId = newId();
  const now = deps.clock.now();
  const ua = req.headers['user-agent']?.slice(0, 300) ?? null;
  await handleCommand(
    deps.store,
    sessionDecider,
    sessionStream(sessionId),
    {
      type: 'StartSession',
      data: {
        sessionId,
        userId: user.userId,
        tokenVersion: user.tokenVersion,
        amr,
        userAgent: ua ? await seal(deps.db, user.userId, ua) : null,
        ip: await seal(deps.db, user.userId, req.ip),
        expiresAt: new Date(now.getTime() + deps.config.REFRESH_TOKEN_TTL_S * 1000).toISOString(),
        now: now.toISOString(),
      },
    },
    { metadata: { ...userMeta(req, deps, user.userId), actor: { type: 'user', id: user.userId } } },
  );
  return answer(deps, reply, user, amr, sessionId, 0);
}

async function answer(
  deps: AppDeps,
  reply: FastifyReply,
  user: UserRow,
  amr: string[],
  sessionId: string,
  generation: number,
): Promise<LoginData> {
  const refreshToken = deps.tokens.refreshToken(sessionId, generation);
  const { token, expiresIn } = await deps.tokens.issue({
    userId: user.userId,
    tokenVersion: user.tokenVersion,
    amr,
    sessionId,
    sites: user.roles,
  });
  setRefreshCookie(deps, reply, refreshToken);
  return { token, expiresIn, refreshToken, user: toProfile(user) };
}

/**
 * Rotates a refresh token: the presented generation must be the live one; then generation+1 is the only
 * live token. A rotated (older) token presented again ends the whole family, and this call fails.
 */
export async function refreshSession(
  deps: AppDeps,
  req: FastifyRequest,
  reply: FastifyReply,
  presented: string,
): Promise<LoginData> {
  const parsed = deps.tokens.parseRefresh(presented);
  if (!parsed) throw new InvalidRefreshToken();
  const owner = await findSessionOwner(deps.db, parsed.sessionId);
  const user = owner ? await findUserById(deps.db, owner) : null;
  if (!user) throw new InvalidRefreshToken();
  const result = await handleCommand(
    deps.store,
    sessionDecider,
    sessionStream(parsed.sessionId),
    {
      type: 'RefreshSession',
      data: { ...parsed, userTokenVersion: user.tokenVersion, now: deps.clock.now().toISOString() },
    },
    { metadata: { ...userMeta(req, deps, user.userId), actor: { type: 'user', id: user.userId } } },
  );
  const e = result.events[0] as SessionEvent | undefined;
  if (!e || e.type !== 'SessionRefreshed' || result.state.status !== 'live') {
    clearRefreshCookie(deps, reply);
    if (e?.type === 'SessionRevoked' && e.data.reason === 'reuse') throw new RefreshTokenReused();
    throw new RefreshEndedSession();
  }
  return answer(deps, reply, user, result.state.amr, parsed.sessionId, e.data.generation);
}

/** Ends one session (idempotent). */
export async function revokeSession(
  deps: AppDeps,
  metadata: EventMetadata,
  sessionId: string,
  reason: RevokeReason,
  by: string | null,
): Promise<void> {
  await handleCommand(
    deps.store,
    sessionDecider,
    sessionStream(sessionId),
    { type: 'RevokeSession', data: { sessionId, reason, by, now: deps.clock.now().toISOString() } },
    { metadata },
  );
}

/**
 * Ends every live session of a user. Callers bump the user's token version first: that alone already
 * voids every refresh token (sessions remember the version they began with), so a session started during
 * this loop cannot outlive it; the events make each ending visible in the session list and the audit log.
 */
export async function revokeAllSessions(
  deps: AppDeps,
  metadata: EventMetadata,
  userId: string,
  reason: RevokeReason,
  by: string | null,
): Promise<number> {
  const live = await liveSessions(deps.db, userId, deps.clock.now());
  for (const s of live) await revokeSession(deps, metadata, s.id, reason, by);
  return live.length;
}

export function setRefreshCookie(deps: AppDeps, reply: FastifyReply, token: string): void {
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

export function clearRefreshCookie(deps: AppDeps, reply: FastifyReply): void {
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
