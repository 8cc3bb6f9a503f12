import { createHash } from 'node:crypto';
import type { DomainEvent } from '../../kernel/es/event.ts';

/** A browser's push subscription (the Push API's `PushSubscription.toJSON()`, its keys base64url). */
export interface PushKeys {
  /** The browser's P-256 public key, 65 bytes uncompressed. */
  p256dh: string;
  /** The 16-byte authentication secret. */
  auth: string;
}

/** A user's browser subscribed (or subscribed again, maybe with new keys, maybe as another user of that browser). */
export type PushSubscriptionSaved = DomainEvent<
  'PushSubscriptionSaved',
  { subscriptionId: string; userId: string; endpoint: string; keys: PushKeys; at: string }
>;
/** The subscription ended: its user unsubscribed, or the push service said the endpoint is gone (404, 410). */
export type PushSubscriptionRemoved = DomainEvent<
  'PushSubscriptionRemoved',
  { subscriptionId: string; reason: 'unsubscribed' | 'gone'; at: string }
>;

export type PushEvent = PushSubscriptionSaved | PushSubscriptionRemoved;
export const PUSH_EVENT_TYPES = ['PushSubscriptionSaved', 'PushSubscriptionRemoved'] as const;

/** A subscription's id: one per site and endpoint (a browser's endpoint names it). */
export const subscriptionId = (siteId: string, endpoint: string) =>
  createHash('sha256').update(`${siteId}\u0000${endpoint}`).digest('base64url').slice(0, 32);
export const pushSubscriptionStream = (siteId: string, id: string) => `${siteId}/push-subscription/${id}`;
