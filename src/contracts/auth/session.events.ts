import type { DomainEvent } from '../../kernel/es/event.ts';
import type { Sealed } from '../../platform/privacy/pii.ts';

/**
 * A login began a session: a refresh-token family. Generation 0 is the first refresh token; the token itself
 * is never stored (it is an HMAC of the session id and generation under JWT_SECRET).
 */
export type SessionStarted = DomainEvent<
  'SessionStarted',
  {
    sessionId: string;
    userId: string;
    /** The user's token version at login: a later bump ends the session. */
    tokenVersion: number;
    amr: string[];
    /** Sealed with the user's subject key (personal data). */
    userAgent: Sealed | null;
    ip: Sealed | null;
    expiresAt: string;
    at: string;
  }
>;
/** The session's refresh token was rotated: generation `generation` is now the only live one. */
export type SessionRefreshed = DomainEvent<'SessionRefreshed', { sessionId: string; generation: number; at: string }>;
export type RevokeReason = 'logout' | 'reuse' | 'user' | 'admin' | 'password' | 'tfa' | 'expired';
/** The session ended: no refresh token of its family works any more, nor access tokens naming it. */
export type SessionRevoked = DomainEvent<
  'SessionRevoked',
  { sessionId: string; reason: RevokeReason; by: string | null; at: string }
>;

export type SessionEvent = SessionStarted | SessionRefreshed | SessionRevoked;

export const sessionStream = (sessionId: string) => `_system/session/${sessionId}`;
