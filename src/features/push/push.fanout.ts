import type { AppDeps } from '../../deps.ts';
import type { StoredEventOf } from '../../kernel/es/projector.ts';
import { defineReactor, reactionMetadata, type Reactor } from '../../kernel/es/reactor.ts';
import { readAsSite } from '../../kernel/tenancy/site.ts';
import { subscriptionPage, type PushSubscriptionRecord } from '../../../projections/push-subscriptions/index.ts';
import { receives, standingOf, type Standing } from '../notifications/index.ts';
import { payloadOf, type NotificationRaised } from '../../contracts/notifications/notifications.events.ts';
import { dispatch } from './push.sender.ts';

export const PUSH_FANOUT = 'push-fanout';
const PAGE = 1000;

/** Every subscription of the site, or of the given users, page by page. */
export async function siteSubscriptions(
  deps: Pick<AppDeps, 'db'>,
  siteId: string,
  userIds: readonly string[] | null,
): Promise<PushSubscriptionRecord[]> {
  const out: PushSubscriptionRecord[] = [];
  for (let after: string | null = null; ;) {
    const page = await readAsSite(deps.db, siteId, (db) =>
      subscriptionPage(db, siteId, { userIds, after, limit: PAGE }),
    );
    out.push(...page);
    if (page.length < PAGE) return out;
    after = page[page.length - 1]!.id;
  }
}

/** The site's subscriptions whose users receive the notification now (the site's own rows only). */
async function targetsOf(deps: AppDeps, e: StoredEventOf<NotificationRaised>): Promise<PushSubscriptionRecord[]> {
  const r = e.data.recipient;
  const subs = await siteSubscriptions(deps, e.siteId, r.type === 'user' ? [r.id] : null);
  const standings = new Map<string, Standing | null>();
  const out: PushSubscriptionRecord[] = [];
  for (const sub of subs) {
    if (!standings.has(sub.userId)) standings.set(sub.userId, await standingOf(deps, e.siteId, sub.userId));
    if (receives(sub.userId, standings.get(sub.userId)!, r)) out.push(sub);
  }
  return out;
}

/**
 * Web Push of each raised notification to the browsers of its recipients on that site: a process manager off the
 * log, so it never blocks or fails the request behind the notification. Without VAPID keys it sends nothing.
 */
export function pushFanout(deps: AppDeps): Reactor {
  return defineReactor<NotificationRaised, PushSubscriptionRecord[], Fanout>({
    name: PUSH_FANOUT,
    handles: ['NotificationRaised'],
    load: async (e) => (deps.config.vapid ? targetsOf(deps, e) : []),
    react: (e, targets) => (targets.length ? [{ payload: JSON.stringify(payloadOf(e.data)), targets }] : []),
    send: async (c, e) => {
      const metadata = reactionMetadata(e, { type: 'system', id: PUSH_FANOUT }, deps.clock.now());
      await dispatch(deps, e.siteId, c.targets, c.payload, metadata);
    },
  });
}

/** One notification's push: its payload (the spec's, as JSON) and the subscriptions it goes to. */
interface Fanout {
  payload: string;
  targets: PushSubscriptionRecord[];
}
