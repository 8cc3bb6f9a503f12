import type { Decider } from '../../kernel/es/decider.ts';
import { PushSubscriptionNotFound } from './push.errors.ts';
import type { PushEvent, PushKeys } from '../../contracts/push/push.events.ts';

export type PushSubscriptionState = { userId: string; endpoint: string; keys: PushKeys } | null;

export type PushCommand =
  | {
      type: 'SaveSubscription';
      data: { subscriptionId: string; userId: string; endpoint: string; keys: PushKeys; now: string };
    }
  | {
      type: 'RemoveSubscription';
      /**
       * `userId`: only that user's subscription (an unsubscribe); null: whoever's (the push service's answer).
       * `ifKeys`: only while the subscription still has the keys a push went out with (not one saved again since).
       */
      data: {
        subscriptionId: string;
        userId: string | null;
        reason: 'unsubscribed' | 'gone';
        ifKeys?: PushKeys;
        now: string;
      };
    };

/**
 * One stream per site and endpoint. Saving the same keys for the same user records nothing; a user removes only
 * their own subscription (another's answers as absent).
 */
export const pushSubscriptionDecider: Decider<PushSubscriptionState, PushCommand, PushEvent> = {
  initialState: () => null,
  evolve: (_s, e) =>
    e.type === 'PushSubscriptionSaved' ? { userId: e.data.userId, endpoint: e.data.endpoint, keys: e.data.keys } : null,
  decide: (c, s) => {
    switch (c.type) {
      case 'SaveSubscription': {
        const { now, ...d } = c.data;
        if (s && s.userId === d.userId && s.keys.p256dh === d.keys.p256dh && s.keys.auth === d.keys.auth) return [];
        return [{ type: 'PushSubscriptionSaved', data: { ...d, at: now } }];
      }
      case 'RemoveSubscription': {
        const d = c.data;
        if (!s || (d.userId !== null && s.userId !== d.userId)) {
          if (d.reason === 'gone') return [];
          throw new PushSubscriptionNotFound({});
        }
        if (d.ifKeys && (d.ifKeys.p256dh !== s.keys.p256dh || d.ifKeys.auth !== s.keys.auth)) return [];
        return [
          { type: 'PushSubscriptionRemoved', data: { subscriptionId: d.subscriptionId, reason: d.reason, at: d.now } },
        ];
      }
    }
  },
};
