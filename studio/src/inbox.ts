/**
 * The inbox's pure parts: a notification as the list and the realtime frames carry it, the list with the frames that
 * arrived since it was fetched, the unhandled count of the badge, and what Web Push needs of the browser.
 */

export type Severity = 'info' | 'warning' | 'critical';

/** The spec's payload (a realtime `notification` frame's data). */
export interface NotificationPayload {
  id: string;
  kind: string;
  severity: Severity;
  title: string;
  body: string;
  deepLink: string | null;
  entityId: string | null;
  ts: string;
}

/** A notification of `GET /notifications`: the payload and whether the caller handled it. */
export interface InboxEntry extends NotificationPayload {
  handled: boolean;
  handledAt: string | null;
}

/** The data of a `notification` frame, or null when it is not one (a malformed frame is dropped, not shown). */
export function payloadOf(data: unknown): NotificationPayload | null {
  if (typeof data !== 'object' || data === null) return null;
  const d = data as Record<string, unknown>;
  const str = (v: unknown) => typeof v === 'string';
  const strOrNull = (v: unknown) => v === null || v === undefined || typeof v === 'string';
  if (!str(d.id) || !str(d.kind) || !str(d.title) || !str(d.ts)) return null;
  if (!strOrNull(d.body) || !strOrNull(d.deepLink) || !strOrNull(d.entityId)) return null;
  const severity: Severity = d.severity === 'warning' || d.severity === 'critical' ? d.severity : 'info';
  return {
    id: d.id as string,
    kind: d.kind as string,
    severity,
    title: d.title as string,
    body: (d.body as string | null | undefined) ?? '',
    deepLink: (d.deepLink as string | null | undefined) ?? null,
    entityId: (d.entityId as string | null | undefined) ?? null,
    ts: d.ts as string,
  };
}

/**
 * The first page of the inbox with the notifications that arrived live and are not in it yet, newest first. Only on
 * the first page: a later page is the list as fetched. `handledIds` are those marked handled here since.
 */
export function mergeInbox(
  fetched: readonly InboxEntry[],
  live: readonly NotificationPayload[],
  handledIds: ReadonlySet<string> = new Set(),
  firstPage = true,
): InboxEntry[] {
  const known = new Set(fetched.map((n) => n.id));
  const fresh: InboxEntry[] = firstPage
    ? live.filter((n) => !known.has(n.id)).map((n) => ({ ...n, handled: false, handledAt: null }))
    : [];
  return [...fresh, ...fetched]
    .map((n) => (handledIds.has(n.id) && !n.handled ? { ...n, handled: true } : n))
    .sort((a, b) => (a.ts < b.ts ? 1 : a.ts > b.ts ? -1 : 0));
}

/**
 * The badge's number: the unhandled total the API last answered, plus live arrivals it did not count (not among the
 * unhandled ids it listed, and not handled here since).
 */
export function unhandledCount(
  total: number,
  countedIds: readonly string[],
  live: readonly NotificationPayload[],
  handledIds: ReadonlySet<string> = new Set(),
): number {
  const counted = new Set(countedIds);
  const extra = live.filter((n) => !counted.has(n.id) && !handledIds.has(n.id)).length;
  const handledCounted = [...handledIds].filter((id) => counted.has(id)).length;
  return Math.max(0, total - handledCounted + extra);
}

/** The raw bytes of a base64url string (a VAPID public key, as `applicationServerKey`). */
export function base64UrlBytes(s: string): Uint8Array<ArrayBuffer> {
  const b64 = s.replace(/-/g, '+').replace(/_/g, '/') + '='.repeat((4 - (s.length % 4)) % 4);
  const bin = atob(b64);
  const out = new Uint8Array(new ArrayBuffer(bin.length));
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}

/** What the subscribe button may offer: nothing without keys; else whether this browser can subscribe at all. */
export type PushOffer = 'off' | 'unsupported' | 'available';

export function pushOffer(
  publicKey: string | null,
  env: { serviceWorker: boolean; pushManager: boolean; notification: boolean; secure: boolean },
): PushOffer {
  if (!publicKey) return 'off';
  return env.serviceWorker && env.pushManager && env.notification && env.secure ? 'available' : 'unsupported';
}
