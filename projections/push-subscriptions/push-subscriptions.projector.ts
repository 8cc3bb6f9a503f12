import { sql } from 'kysely';
import { defineProjector } from '../../src/kernel/es/projector.ts';
import { PUSH_EVENT_TYPES, type PushEvent } from '../../src/contracts/push/push.events.ts';

/** The live push subscriptions of each site, written in the append's transaction. */
export const pushSubscriptionsProjector = defineProjector<PushEvent>({
  name: 'push-subscriptions',
  version: 1,
  mode: 'inline',
  tables: ['push_subscriptions'],
  handles: PUSH_EVENT_TYPES,
  createTables: async (db, t) => {
    const table = t('push_subscriptions');
    await sql`
      create table ${sql.table(table)} (
        site_id text not null,
        subscription_id text not null,
        user_id text not null,
        endpoint text not null,
        p256dh text not null,
        auth text not null,
        created_at timestamptz not null,
        updated_at timestamptz not null,
        primary key (site_id, subscription_id)
      )`.execute(db);
    await sql`create index ${sql.raw(`${table}_user`)} on ${sql.table(table)} (site_id, user_id)`.execute(db);
  },
  apply: async (trx, e) => {
    switch (e.type) {
      case 'PushSubscriptionSaved': {
        const d = e.data;
        await trx
          .insertInto('push_subscriptions')
          .values({
            site_id: e.siteId,
            subscription_id: d.subscriptionId,
            user_id: d.userId,
            endpoint: d.endpoint,
            p256dh: d.keys.p256dh,
            auth: d.keys.auth,
            created_at: d.at,
            updated_at: d.at,
          })
          .onConflict((oc) =>
            oc.columns(['site_id', 'subscription_id']).doUpdateSet({
              user_id: d.userId,
              p256dh: d.keys.p256dh,
              auth: d.keys.auth,
              updated_at: d.at,
            }),
          )
          .execute();
        return;
      }
      case 'PushSubscriptionRemoved':
        await trx
          .deleteFrom('push_subscriptions')
          .where('site_id', '=', e.siteId)
          .where('subscription_id', '=', e.data.subscriptionId)
          .execute();
        return;
    }
  },
});
