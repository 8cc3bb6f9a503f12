import { isIP } from 'node:net';
import { checkUrl, OutboundError, resolvePublic } from './outbound-http.ts';

/** What a save checks of a URL the service will call later, and the setting that lets private addresses through. */
export interface SavedUrlOptions {
  /** The area's private-address setting (SVC_WEBHOOK_ALLOW_PRIVATE, SVC_FLOW_ALLOW_PRIVATE, …). */
  allowPrivate: boolean;
  /** Refuse plain http. */
  httpsOnly?: boolean;
  /** The save's deadline for name lookups (shared by every URL of one save); past it a name is checked at send. */
  deadline?: AbortSignal;
}

/** How long one save waits for one name's lookup: a slow nameserver must not hold a save (or the lookup threads). */
const LOOKUP_MS = 2_000;

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
 * every call resolves and checks again (a name can be re-pointed after the save), and so does one whose lookup
 * takes longer than the save may wait.
 */
export async function savedUrlProblem(raw: string, opts: SavedUrlOptions): Promise<SavedUrlProblem | null> {
  try {
    const url = checkUrl(raw, { httpsOnly: opts.httpsOnly ?? false });
    if (opts.allowPrivate) return null;
    // An address, or a name that is loopback by definition, needs no nameserver and never waits.
    const host = url.hostname
      .replace(/^\[|\]$/g, '')
      .replace(/\.$/, '')
      .toLowerCase();
    if (host === 'localhost' || host.endsWith('.localhost'))
      return { reason: 'private_address', message: `${host} is a loopback name` };
    await (isIP(host) ? resolvePublic(url) : withinDeadline(resolvePublic(url), opts.deadline));
    return null;
  } catch (err) {
    if (!(err instanceof OutboundError)) throw err;
    return err.reason === 'unresolved' ? null : { reason: err.reason, message: err.message };
  }
}

/** The lookup, or 'unresolved' when it outlasts LOOKUP_MS or the save's deadline (the send checks it again). */
function withinDeadline<T>(lookup: Promise<T>, deadline: AbortSignal | undefined): Promise<T> {
  const signal = deadline
    ? AbortSignal.any([deadline, AbortSignal.timeout(LOOKUP_MS)])
    : AbortSignal.timeout(LOOKUP_MS);
  lookup.catch(() => undefined); // its answer may come after the deadline, with no one waiting for it
  if (signal.aborted) return Promise.reject(new OutboundError('unresolved', 'the lookup ran out of time'));
  return Promise.race([
    lookup,
    new Promise<never>((_, reject) =>
      signal.addEventListener('abort', () => reject(new OutboundError('unresolved', 'the lookup ran out of time')), {
        once: true,
      }),
    ),
  ]);
}
