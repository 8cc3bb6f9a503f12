import type { AppDeps } from '../../deps.ts';
import { actorOf, siteOf, type Principal } from '../../kernel/http/access.ts';
import { findUserForToken } from '../../../projections/users/index.ts';
import { RealtimeNeedsUser, TicketExpired, TicketRefused } from './realtime.errors.ts';

/** A ticket lives one minute (spec "Events", delivery rule 7). */
export const TICKET_TTL_S = 60;

/** Who a consumed ticket lets in: one user on one site, in the session it was asked from. */
export interface TicketHolder {
  userId: string;
  siteId: string;
  sessionId: string | null;
  tokenVersion: number;
  /** The authentication methods of the session the ticket was asked from (a step-up policy counts them). */
  amr: string[];
}

/**
 * A realtime ticket for the caller on the active site: a JWT of its own audience under the service's signing key,
 * bound to the user, the site, the session and the token version, valid one minute, used once.
 */
export async function issueTicket(
  deps: Pick<AppDeps, 'tokens' | 'db'>,
  p: Principal,
): Promise<{ ticket: string; expiresAt: string }> {
  const actor = actorOf(p);
  if (actor.type !== 'user') throw new RealtimeNeedsUser({ reason: 'api_key' });
  // A connection outlives the credential it was opened with and is checked against the account and its session:
  // an impersonation (no session of its own, a short life) and a token of an outside issuer with no account here
  // have neither, so they get no ticket.
  if (actor.impersonator) throw new RealtimeNeedsUser({ reason: 'impersonation' });
  const account = await findUserForToken(deps.db, actor.id, actor.sessionId ?? null);
  if (!account || !account.sessionLive) throw new RealtimeNeedsUser({ reason: 'no_account' });
  const claims = {
    site: siteOf(p),
    sid: actor.sessionId ?? null,
    tv: actor.tokenVersion,
    amr: actor.amr ?? [],
  };
  const ticket = await deps.tokens.issuePurpose('realtime-ticket', actor.id, claims, TICKET_TTL_S);
  // The JWT's expiry is the real clock's (jose), and so is this.
  return { ticket, expiresAt: new Date(Date.now() + TICKET_TTL_S * 1000).toISOString() };
}

/** A genuine, unexpired ticket and who it lets in, not consumed yet (the cheap refusals come before that). */
export async function readTicket(
  deps: Pick<AppDeps, 'tokens'>,
  ticket: string | undefined,
): Promise<TicketHolder & { ticketId: string }> {
  if (!ticket) throw new TicketRefused({ reason: 'ticket_required' });
  if (ticket.length > 4096) throw new TicketRefused({ reason: 'ticket_invalid' });
  const claims = await deps.tokens.checkPurpose('realtime-ticket', ticket);
  if (claims === 'expired') throw new TicketExpired({});
  if (claims === 'invalid' || typeof claims.site !== 'string' || typeof claims.tv !== 'number')
    throw new TicketRefused({ reason: 'ticket_invalid' });
  return {
    ticketId: claims.jti,
    userId: claims.sub,
    siteId: claims.site,
    sessionId: typeof claims.sid === 'string' ? claims.sid : null,
    tokenVersion: claims.tv,
    amr: Array.isArray(claims.amr) ? claims.amr.filter((m): m is string => typeof m === 'string') : [],
  };
}

/** Consumes a ticket read by `readTicket`: the first call in the whole deployment wins, every later one is refused. */
export async function spendTicket(deps: Pick<AppDeps, 'realtime'>, ticketId: string): Promise<void> {
  // Kept a little past the ticket's own life, so it cannot be used again before it expires.
  if (!(await deps.realtime.hub.claim(`ticket:${ticketId}`, (TICKET_TTL_S + 10) * 1000)))
    throw new TicketRefused({ reason: 'ticket_used' });
}
