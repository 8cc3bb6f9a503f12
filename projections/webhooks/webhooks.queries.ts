import type { Db } from '../../src/kernel/db/database.ts';
import { asSystem } from '../../src/kernel/tenancy/site.ts';
import type { WebhookEventName, WebhookPayload } from '../../src/contracts/webhooks/webhook.events.ts';
import type { DeliveryAttempt } from './webhooks.table.ts';

/** A webhook as the API shows it: never its secret. */
export interface WebhookRecord {
  id: string;
  name: string;
  url: string;
  events: WebhookEventName[];
  collections: string[] | null;
  enabled: boolean;
  createdAt: string;
  updatedAt: string;
}

/** One entry of the delivery log. */
export interface DeliveryRecord {
  id: string;
  webhookId: string;
  sourceEventId: string;
  event: WebhookEventName;
  payload: WebhookPayload;
  status: 'pending' | 'delivered' | 'abandoned';
  reason: string | null;
  attempts: DeliveryAttempt[];
  nextAttemptAt: string | null;
  createdAt: string;
  updatedAt: string;
}

const iso = (d: Date | string) => new Date(d).toISOString();
const webhookColumns = [
  'webhook_id',
  'name',
  'url',
  'events',
  'collections',
  'enabled',
  'created_at',
  'updated_at',
] as const;

const toWebhook = (r: {
  webhook_id: string;
  name: string;
  url: string;
  events: WebhookEventName[];
  collections: string[] | null;
  enabled: boolean;
  created_at: Date;
  updated_at: Date;
}): WebhookRecord => ({
  id: r.webhook_id,
  name: r.name,
  url: r.url,
  events: r.events,
  collections: r.collections,
  enabled: r.enabled,
  createdAt: iso(r.created_at),
  updatedAt: iso(r.updated_at),
});

/** The site's webhooks by name. */
export async function listWebhooks(db: Db, siteId: string): Promise<WebhookRecord[]> {
  const rows = await db
    .selectFrom('webhooks')
    .select(webhookColumns)
    .where('site_id', '=', siteId)
    .orderBy('name')
    .execute();
  return rows.map(toWebhook);
}

export async function findWebhook(db: Db, siteId: string, webhookId: string): Promise<WebhookRecord | null> {
  const row = await db
    .selectFrom('webhooks')
    .select(webhookColumns)
    .where('site_id', '=', siteId)
    .where('webhook_id', '=', webhookId)
    .executeTakeFirst();
  return row ? toWebhook(row) : null;
}

/** A webhook's deliveries, newest first, and how many there are. */
export async function listDeliveries(
  db: Db,
  siteId: string,
  webhookId: string,
  page: { limit: number; offset: number },
): Promise<{ rows: DeliveryRecord[]; total: number }> {
  const mine = db.selectFrom('webhook_deliveries').where('site_id', '=', siteId).where('webhook_id', '=', webhookId);
  const rows = await mine.selectAll().orderBy('seq', 'desc').limit(page.limit).offset(page.offset).execute();
  const count = await mine.select((eb) => eb.fn.countAll<string>().as('n')).executeTakeFirstOrThrow();
  return {
    total: Number(count.n),
    rows: rows.map((r) => ({
      id: r.delivery_id,
      webhookId: r.webhook_id,
      sourceEventId: r.source_event_id,
      event: r.event,
      payload: r.payload,
      status: r.status,
      reason: r.reason,
      attempts: r.attempts,
      nextAttemptAt: r.next_attempt_at ? iso(r.next_attempt_at) : null,
      createdAt: iso(r.created_at),
      updatedAt: iso(r.updated_at),
    })),
  };
}

/** Pending deliveries whose time has come, on every site, the longest waiting first. */
export async function dueDeliveries(
  db: Db,
  now: Date,
  limit: number,
): Promise<{ siteId: string; deliveryId: string }[]> {
  // The sender looks across every site; each delivery is then folded from its own stream under its site.
  const rows = await asSystem(db, (db) =>
    db
      .selectFrom('webhook_deliveries')
      .select(['site_id', 'delivery_id'])
      .where('status', '=', 'pending')
      .where('next_attempt_at', '<=', now)
      .orderBy('next_attempt_at')
      .limit(limit)
      .execute(),
  );
  return rows.map((r) => ({ siteId: r.site_id, deliveryId: r.delivery_id }));
}

/** When the sender next has work: the earliest attempt of a pending delivery, across every site; null: none. */
export async function nextDeliveryAt(db: Db): Promise<Date | null> {
  const row = await asSystem(db, (db) =>
    db
      .selectFrom('webhook_deliveries')
      .select((eb) => eb.fn.min('next_attempt_at').as('at'))
      .where('status', '=', 'pending')
      .executeTakeFirst(),
  );
  return row?.at ?? null;
}

/**
 * Deletes the site's finished deliveries (delivered or abandoned) last changed before `before`; pending ones stay
 * whatever their age. Answers how many went. The log keeps them: a rebuild brings them back until the next prune.
 */
export async function pruneDeliveries(db: Db, siteId: string, before: Date): Promise<number> {
  const r = await db
    .deleteFrom('webhook_deliveries')
    .where('site_id', '=', siteId)
    .where('status', 'in', ['delivered', 'abandoned'])
    .where('updated_at', '<', before)
    .executeTakeFirst();
  return Number(r.numDeletedRows);
}
