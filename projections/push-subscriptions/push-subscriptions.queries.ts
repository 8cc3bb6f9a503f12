import type { Db } from '../../src/kernel/db/database.ts';

/** A subscription as a sender needs it. */
export interface PushSubscriptionRecord {
  id: string;
  userId: string;
  endpoint: string;
  keys: { p256dh: string; auth: string };
  updatedAt: string;
}

/** How many subscriptions the site has, or one user of it has. */
export async function countSubscriptions(db: Db, siteId: string, userId?: string): Promise<number> {
  let q = db.selectFrom('push_subscriptions').where('site_id', '=', siteId);
  if (userId !== undefined) q = q.where('user_id', '=', userId);
  const r = await q.select((eb) => eb.fn.countAll<string>().as('n')).executeTakeFirstOrThrow();
  return Number(r.n);
}

/** The ids of one user's subscriptions on the site. */
export async function subscriptionIdsOf(db: Db, siteId: string, userId: string): Promise<string[]> {
  const rows = await db
    .selectFrom('push_subscriptions')
    .select('subscription_id')
    .where('site_id', '=', siteId)
    .where('user_id', '=', userId)
    .execute();
  return rows.map((r) => r.subscription_id);
}

/** A page of the site's subscriptions (of some users, or all), by id after `after`. */
export async function subscriptionPage(
  db: Db,
  siteId: string,
  q: { userIds: readonly string[] | null; after: string | null; limit: number },
): Promise<PushSubscriptionRecord[]> {
  let query = db
    .selectFrom('push_subscriptions')
    .select(['subscription_id', 'user_id', 'endpoint', 'p256dh', 'auth', 'updated_at'])
    .where('site_id', '=', siteId);
  if (q.userIds !== null) {
    if (!q.userIds.length) return [];
    query = query.where('user_id', 'in', [...q.userIds]);
  }
  if (q.after !== null) query = query.where('subscription_id', '>', q.after);
  const rows = await query.orderBy('subscription_id').limit(q.limit).execute();
  return rows.map((r) => ({
    id: r.subscription_id,
    userId: r.user_id,
    endpoint: r.endpoint,
    keys: { p256dh: r.p256dh, auth: r.auth },
    updatedAt: new Date(r.updated_at).toISOString(),
  }));
}
