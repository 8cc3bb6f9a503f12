import type { AppDeps } from '../../deps.ts';
import { handleCommand } from '../../kernel/es/handle-command.ts';
import type { CommandContext } from '../../kernel/http/command-meta.ts';
import { DomainError } from '../../kernel/http/errors.ts';
import { newId } from '../../kernel/ids.ts';
import { seal } from '../../platform/privacy/pii.ts';
import { findUserById, toProfile, type UserRow } from '../../../projections/users/index.ts';
import { findSessionOwner, liveSessions } from '../../../projections/sessions/index.ts';
import { asUser } from './acting-user.ts';
import {
  InvalidRefreshToken,
  NoSessionToEnd,
  RefreshEndedSession,
  RefreshTokenReused,
  SessionNotFound,
  UnreadableRefreshToken,
} from './auth.errors.ts';
import { sessionDecider, type SessionCommand } from './session.decider.ts';
import { sessionStream, type RevokeReason, type SessionEvent } from '../../contracts/auth/session.events.ts';

type Deps = Pick<AppDeps, 'db' | 'store' | 'tokens' | 'config'>;

/** What login, verify-totp and setup answer: the spec's login result plus the refresh token. */
export interface LoginData {
  token: string;
  expiresIn: number;
  refreshToken: string;
  user: ReturnType<typeof toProfile>;
}

/** Where a session is used from, kept sealed under the user's key. */
export interface SessionClient {
  userAgent: string | null;
  ip: string;
}

const send = (deps: Pick<AppDeps, 'store'>, ctx: CommandContext, command: SessionCommand) =>
  handleCommand(deps.store, sessionDecider, sessionStream(command.data.sessionId), command, {
    metadata: ctx.metadata,
  });

/** Starts a session (a refresh-token family) for a user who proved who they are; answers its tokens. */
export async function openSession(
  deps: Deps,
  ctx: CommandContext,
  input: { user: UserRow; amr: string[]; client: SessionClient },
): Promise<LoginData> {
  const { user, amr, client } = input;
  const sessionId = newId();
  await send(deps, asUser(ctx, user.userId), {
    type: 'StartSession',
    data: {
      sessionId,
      userId: user.userId,
      tokenVersion: user.tokenVersion,
      amr,
      userAgent: client.userAgent ? await seal(deps.db, deps.config.keyring, user.userId, client.userAgent) : null,
      ip: await seal(deps.db, deps.config.keyring, user.userId, client.ip),
      expiresAt: new Date(ctx.now.getTime() + deps.config.REFRESH_TOKEN_TTL_S * 1000).toISOString(),
      now: ctx.now.toISOString(),
    },
  });
  return answer(deps, user, amr, sessionId, 0);
}

async function answer(
  deps: Pick<AppDeps, 'tokens'>,
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
  return { token, expiresIn, refreshToken, user: toProfile(user) };
}

/**
 * Rotates a refresh token: the presented generation must be the live one; then generation+1 is the only
 * live token. A rotated (older) token presented again ends the whole family, and this call fails.
 */
export async function rotateSession(deps: Deps, ctx: CommandContext, presented: string): Promise<LoginData> {
  const parsed = deps.tokens.parseRefresh(presented);
  if (!parsed) throw new InvalidRefreshToken();
  const owner = await findSessionOwner(deps.db, parsed.sessionId);
  const user = owner ? await findUserById(deps.db, owner) : null;
  if (!user) throw new InvalidRefreshToken();
  const result = await send(deps, asUser(ctx, user.userId), {
    type: 'RefreshSession',
    data: { ...parsed, userTokenVersion: user.tokenVersion, now: ctx.now.toISOString() },
  });
  const e = result.events[0] as SessionEvent | undefined;
  if (!e || e.type !== 'SessionRefreshed' || result.state.status !== 'live') {
    if (e?.type === 'SessionRevoked' && e.data.reason === 'reuse') throw new RefreshTokenReused();
    throw new RefreshEndedSession();
  }
  return answer(deps, user, result.state.amr, parsed.sessionId, e.data.generation);
}

/** Whether a failed rotation ended its session, so the client's refresh cookie is dead too. */
export const endedBySessionRotation = (err: unknown) =>
  err instanceof RefreshTokenReused || err instanceof RefreshEndedSession;

/** Ends one session (idempotent). */
export async function revokeSession(
  deps: Pick<AppDeps, 'store'>,
  ctx: CommandContext,
  input: { sessionId: string; reason: RevokeReason; by: string | null },
): Promise<void> {
  await send(deps, ctx, { type: 'RevokeSession', data: { ...input, now: ctx.now.toISOString() } });
}

/**
 * Ends every live session of a user. Callers bump the user's token version first: that alone already
 * voids every refresh token (sessions remember the version they began with), so a session started during
 * this loop cannot outlive it; the events make each ending visible in the session list and the audit log.
 */
export async function revokeAllSessions(
  deps: Pick<AppDeps, 'db' | 'store'>,
  ctx: CommandContext,
  input: { userId: string; reason: RevokeReason; by: string | null },
): Promise<number> {
  const live = await liveSessions(deps.db, input.userId, ctx.now);
  for (const s of live) await revokeSession(deps, ctx, { sessionId: s.id, reason: input.reason, by: input.by });
  return live.length;
}

/** Ends the caller's own session `sessionId`; another user's is as unknown as a missing one. */
export async function revokeOwnSession(
  deps: Pick<AppDeps, 'db' | 'store'>,
  ctx: CommandContext,
  input: { userId: string; sessionId: string },
): Promise<void> {
  const mine = (await liveSessions(deps.db, input.userId, ctx.now)).some((s) => s.id === input.sessionId);
  if (!mine) throw new SessionNotFound({ sessionId: input.sessionId });
  await revokeSession(deps, ctx, { sessionId: input.sessionId, reason: 'user', by: input.userId });
}

/** Ends the session a refresh token names, or else the bearer's own; an already unknown session is no error. */
export async function logout(
  deps: Pick<AppDeps, 'store' | 'tokens'>,
  ctx: CommandContext,
  input: { refreshToken: string | null; bearerSessionId: string | null },
): Promise<void> {
  const parsed = input.refreshToken ? deps.tokens.parseRefresh(input.refreshToken) : null;
  if (input.refreshToken && !parsed) throw new UnreadableRefreshToken();
  const sessionId = parsed?.sessionId ?? input.bearerSessionId;
  if (!sessionId) throw new NoSessionToEnd();
  try {
    await revokeSession(deps, ctx, { sessionId, reason: 'logout', by: null });
  } catch (err) {
    if (!(err instanceof DomainError && err.code === 'NOT_FOUND')) throw err;
  }
}
