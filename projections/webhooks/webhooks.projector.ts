import { sql, type Transaction } from 'kysely';
import type { DB } from '../../src/kernel/db/database.ts';
import type { DeliveryAttempt } from './webhooks.table.ts';
import { defineProjector, type StoredEventOf } from '../../src/kernel/es/projector.ts';
import {
  WEBHOOK_DELIVERY_EVENT_TYPES,
  WEBHOOK_EVENT_TYPES,
  type WebhookDeliveryEvent,
  type WebhookEvent,
} from '../../src/contracts/webhooks/webhook.events.ts';

type Event = WebhookEvent | WebhookDeliveryEvent;

async function applyWebhook(trx: Transaction<DB>, e: StoredEventOf<WebhookEvent>): Promise<void> {
  const site = e.siteId;
  switch (e.type) {
    case 'WebhookCreated': {
      const d = e.data;
      await trx
        .insertInto('webhooks')
        .values({
          site_id: site,
          webhook_id: d.webhookId,
          name: d.name,
          url: d.url,
          events: JSON.stringify(d.events),
          collections: JSON.stringify(d.collections),
          enabled: d.enabled,
          created_at: d.at,
          updated_at: d.at,
        })
        .onConflict((oc) => oc.columns(['site_id', 'webhook_id']).doNothing())
        .execute();
      return;
    }
    case 'WebhookUpdated': {
      const c = e.data.changes;
      await trx
        .updateTable('webhooks')
        .set({
          ...(c.name !== undefined ? { name: c.name } : {}),
          ...(c.url !== undefined ? { url: c.url } : {}),
          ...(c.events !== undefined ? { events: JSON.stringify(c.events) } : {}),
          ...(c.collections !== undefined ? { collections: JSON.stringify(c.collections) } : {}),
          ...(c.enabled !== undefined ? { enabled: c.enabled } : {}),
          updated_at: e.data.at,
        })
        .where('site_id', '=', site)
        .where('webhook_id', '=', e.data.webhookId)
        .execute();
      return;
    }
    case 'WebhookDeleted':
      await trx.deleteFrom('webhooks').where('site_id', '=', site).where('webhook_id', '=', e.data.webhookId).execute();
      return;
  }
}

async function applyDelivery(trx: Transaction<DB>, e: StoredEventOf<WebhookDeliveryEvent>): Promise<void> {
  const site = e.siteId;
  const row = () =>
    trx.updateTable('webhook_deliveries').where('site_id', '=', site).where('delivery_id', '=', e.data.deliveryId);
  switch (e.type) {
    case 'WebhookDeliveryScheduled': {
      const d = e.data;
      await trx
        .insertInto('webhook_deliveries')
        .values({
          site_id: site,
          delivery_id: d.deliveryId,
          webhook_id: d.webhookId,
          source_event_id: d.sourceEventId,
          event: d.event,
          payload: JSON.stringify(d.payload),
          status: 'pending',
          reason: null,
          attempts: '[]',
          attempt_count: 0,
          next_attempt_at: d.at,
          created_at: d.at,
          updated_at: d.at,
        })
        .onConflict((oc) => oc.columns(['site_id', 'delivery_id']).doNothing())
        .execute();
      return;
    }
    case 'WebhookDeliveryAttempted': {
      const { attempt, at, status, error, delivered, nextAttemptAt } = e.data;
      const entry = JSON.stringify([{ attempt, at, status, error, delivered }]);
      await row()
        .set({
          attempts: sql<DeliveryAttempt[]>`attempts || ${entry}::jsonb`,
          attempt_count: attempt,
          ...(delivered ? { status: 'delivered' as const } : {}),
          next_attempt_at: nextAttemptAt,
          updated_at: at,
        })
        // Idempotent: an attempt already recorded is not added again.
        .where('attempt_count', '<', attempt)
        .execute();
      return;
    }
    case 'WebhookDeliveryAbandoned':
      await row()
        .set({ status: 'abandoned', reason: e.data.reason, next_attempt_at: null, updated_at: e.data.at })
        .execute();
      return;
  }
}

const DELIVERY_TYPES: ReadonlySet<string> = new Set(WEBHOOK_DELIVERY_EVENT_TYPES);

/** A site's webhooks (without secrets) and its delivery log, written in the append transaction. */
export const webhooksProjector = defineProjector<Event>({
  name: 'webhooks',
  version: 1,
  mode: 'inline',
  tables: ['webhooks', 'webhook_deliveries'],
  handles: [...WEBHOOK_EVENT_TYPES, ...WEBHOOK_DELIVERY_EVENT_TYPES],
  createTables: async (db, t) => {
    await sql`
      create table ${sql.table(t('webhooks'))} (
        site_id text not null,
        webhook_id text not null,
        name text not null,
        url text not null,
        events jsonb not null,
        collections jsonb,
        enabled boolean not null,
        created_at timestamptz not null,
        updated_at timestamptz not null,
        primary key (site_id, webhook_id)
      )`.execute(db);
    const deliveries = t('webhook_deliveries');
    await sql`
      create table ${sql.table(deliveries)} (
        seq bigserial not null,
        site_id text not null,
        delivery_id text not null,
        webhook_id text not null,
        source_event_id text not null,
        event text not null,
        payload jsonb not null,
        status text not null,
        reason text,
        attempts jsonb not null,
        attempt_count integer not null,
        next_attempt_at timestamptz,
        created_at timestamptz not null,
        updated_at timestamptz not null,
        primary key (site_id, delivery_id)
      )`.execute(db);
    await sql`create index ${sql.raw(`${deliveries}_due`)} on ${sql.table(deliveries)} (next_attempt_at)
              where status = 'pending'`.execute(db);
    await sql`create index ${sql.raw(`${deliveries}_log`)} on ${sql.table(deliveries)}
              (site_id, webhook_id, seq desc)`.execute(db);
  },
  apply: (trx, e) =>
    DELIVERY_TYPES.has(e.type)
      ? applyDelivery(trx, e as StoredEventOf<WebhookDeliveryEvent>)
      : applyWebhook(trx, e as StoredEventOf<WebhookEvent>),
});
