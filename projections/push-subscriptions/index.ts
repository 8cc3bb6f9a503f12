/** The public surface of the push-subscriptions read model: each site's browsers that asked for Web Push. */
export { pushSubscriptionsProjector } from './push-subscriptions.projector.ts';
export {
  countSubscriptions,
  subscriptionIdsOf,
  subscriptionPage,
  type PushSubscriptionRecord,
} from './push-subscriptions.queries.ts';
