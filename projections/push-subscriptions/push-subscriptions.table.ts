import type { Timestamp } from '../../src/kernel/db/database.ts';

/** One row per live push subscription of a site (DDL in push-subscriptions.projector.ts). */
export interface PushSubscriptionsTable {
  site_id: string;
  subscription_id: string;
  user_id: string;
  endpoint: string;
  p256dh: string;
  auth: string;
  created_at: Timestamp;
  updated_at: Timestamp;
}

declare module '../../src/kernel/db/database.ts' {
  interface DB {
    push_subscriptions: PushSubscriptionsTable;
  }
}
