import type { AppDeps } from '../../deps.ts';
import { actorOf, siteOf, type Principal } from '../../kernel/http/access.ts';
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
  impersonator: string | null;
}

/**
 * A realtime ticket for the caller on the active site: a JWT of its own audience under the service's signing key,
 * bound to the user, the site, the session and the token version, valid one minute, used once.
 */
export async function issueTicket(
  deps: Pick<AppDeps, 'tokens' | 'clock'>,
  p: Principal,
): Promise<{ ticket: string; expiresAt: string }> {
  const actor = actorOf(p);
  if (actor.type !== 'user') throw new RealtimeNeedsUser({});
  const claims = {
    site: siteOf(p),
    sid: actor.sessionId ?? null,
    tv: actor.tokenVersion,
    amr: actor.amr ?? [],
    ...(actor.impersonator ? { act: actor.impersonator } : {}),
  };
  const ticket = await deps.tokens.issuePurpose('realtime-ticket', actor.id, claims, TICKET_TTL_S);
  return { ticket, expiresAt: new Date(deps.clock.now().getTime() + TICKET_TTL_S * 1000).toISOString() };
}

/** The holder of a genuine, unexpired, unused ticket; consuming it makes it unusable on every node. */
export async function consumeTicket(
  deps: Pick<AppDeps, 'tokens' | 'realtime'>,
  ticket: string | undefined,
): Promise<TicketHolder> {
  if (!ticket) throw new TicketRefused({ reason: 'ticket_required' });
  if (ticket.length > 4096) throw new TicketRefused({ reason: 'ticket_invalid' });
  const claims = await deps.tokens.checkPurpose('realtime-ticket', ticket);
  if (claims === 'expired') throw new TicketExpired({});
  if (claims === 'invalid' || typeof claims.site !== 'string' || typeof claims.tv !== 'number')
    throw new TicketRefused({ reason: 'ticket_invalid' });
  // Kept a little past the ticket's own life, so it cannot be used again before it expires.
  if (!(await deps.realtime.hub.claim(`ticket:${claims.jti}`, (TICKET_TTL_S + 10) * 1000)))
    throw new TicketRefused({ reason: 'ticket_used' });
  return {
    userId: claims.sub,
    siteId: claims.site,
    sessionId: typeof claims.sid === 'string' ? claims.sid : null,
    tokenVersion: claims.tv,
    amr: Array.isArray(claims.amr) ? claims.amr.filter((m): m is string => typeof m === 'string') : [],
    impersonator: typeof claims.act === 'string' ? claims.act : null,
  };
}
