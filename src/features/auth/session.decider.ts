import { assertNever, type Decider } from '../../kernel/es/decider.ts';
import type { RevokeReason, SessionEvent, SessionStarted } from '../../contracts/auth/session.events.ts';
import { InvalidRefreshToken, SessionExists, SessionNotFound } from './auth.errors.ts';

export type SessionState =
  | { status: 'none' }
  | {
      status: 'live' | 'revoked';
      userId: string;
      tokenVersion: number;
      amr: string[];
      generation: number;
      expiresAt: string;
    };

export type StartSession = { type: 'StartSession'; data: Omit<SessionStarted['data'], 'at'> & { now: string } };
/**
 * Presents the refresh token of generation `generation` (already proven authentic by its MAC). The live
 * generation rotates; an older one is a replay of a rotated token: the whole family is revoked.
 */
export type RefreshSession = {
  type: 'RefreshSession';
  data: { sessionId: string; generation: number; userTokenVersion: number; now: string };
};
export type RevokeSession = {
  type: 'RevokeSession';
  data: { sessionId: string; reason: RevokeReason; by: string | null; now: string };
};
export type SessionCommand = StartSession | RefreshSession | RevokeSession;

export const sessionDecider: Decider<SessionState, SessionCommand, SessionEvent> = {
  initialState: () => ({ status: 'none' }),
  evolve: (s, e) => {
    switch (e.type) {
      case 'SessionStarted':
        return {
          status: 'live',
          userId: e.data.userId,
          tokenVersion: e.data.tokenVersion,
          amr: e.data.amr,
          generation: 0,
          expiresAt: e.data.expiresAt,
        };
      case 'SessionRefreshed':
        return s.status === 'none' ? s : { ...s, generation: e.data.generation };
      case 'SessionRevoked':
        return s.status === 'none' ? s : { ...s, status: 'revoked' };
      default:
        return assertNever(e);
    }
  },
  decide: (cmd, s) => {
    switch (cmd.type) {
      case 'StartSession': {
        if (s.status !== 'none') throw new SessionExists();
        const { now, ...data } = cmd.data;
        return [{ type: 'SessionStarted', data: { ...data, at: now } }];
      }
      case 'RefreshSession': {
        const d = cmd.data;
        if (s.status !== 'live') throw new InvalidRefreshToken();
        const revoke = (reason: RevokeReason): SessionEvent[] => [
          { type: 'SessionRevoked', data: { sessionId: d.sessionId, reason, by: null, at: d.now } },
        ];
        // A rotated token presented again: someone holds a copy. End the family (theft detection).
        if (d.generation < s.generation) return revoke('reuse');
        if (d.generation > s.generation) throw new InvalidRefreshToken();
        if (d.now >= s.expiresAt) return revoke('expired');
        if (d.userTokenVersion !== s.tokenVersion) return revoke('password');
        return [
          { type: 'SessionRefreshed', data: { sessionId: d.sessionId, generation: s.generation + 1, at: d.now } },
        ];
      }
      case 'RevokeSession':
        if (s.status === 'none') throw new SessionNotFound({ sessionId: cmd.data.sessionId });
        if (s.status === 'revoked') return [];
        return [
          {
            type: 'SessionRevoked',
            data: { sessionId: cmd.data.sessionId, reason: cmd.data.reason, by: cmd.data.by, at: cmd.data.now },
          },
        ];
      default:
        return assertNever(cmd);
    }
  },
};
