import { checkUrl, OutboundError, resolvePublic } from './outbound-http.ts';

/** What a save checks of a URL the service will call later, and the setting that lets private addresses through. */
export interface SavedUrlOptions {
  /** The area's private-address setting (SVC_WEBHOOK_ALLOW_PRIVATE, SVC_FLOW_ALLOW_PRIVATE, …). */
  allowPrivate: boolean;
  /** Refuse plain http. */
  httpsOnly?: boolean;
}

/** Why a saved URL is refused: the outbound helper's reason (bad_url, insecure, private_address) and its message. */
export interface SavedUrlProblem {
  reason: OutboundError['reason'];
  message: string;
}

/**
 * Why the service must not save a URL it will call later (a webhook, a flow's request, a key source), or null: the
 * outbound helper's rules, applied when the URL is saved rather than only when it is called. The URL parser reads
 * every IPv4 spelling as the address it means (2130706433, 0x7f000001, 0177.0.0.1 and 127.1 are 127.0.0.1), and the
 * address rules read IPv4 inside IPv6 (`::ffff:127.0.0.1`), so no spelling of a private address gets through. A
 * name is resolved now: one that points at a private address is refused; one that does not resolve yet passes, as
 * every call resolves and checks again (a name can be re-pointed after the save).
 */
export async function savedUrlProblem(raw: string, opts: SavedUrlOptions): Promise<SavedUrlProblem | null> {
  try {
    const url = checkUrl(raw, { httpsOnly: opts.httpsOnly ?? false });
    if (!opts.allowPrivate) await resolvePublic(url);
    return null;
  } catch (err) {
    if (!(err instanceof OutboundError)) throw err;
    return err.reason === 'unresolved' ? null : { reason: err.reason, message: err.message };
  }
}
