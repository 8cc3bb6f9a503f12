import type { Feature } from '../../deps.ts';
import { pushSubscriptionsProjector } from '../../../projections/push-subscriptions/index.ts';
import { pushRoutes } from './http/push.routes.ts';
import { pushFanout } from './push.fanout.ts';

/** Web Push (RFC 8291, RFC 8292): subscriptions per site, user and browser. */
export const pushFeature: Feature = {
  name: 'push',
  projectors: [pushSubscriptionsProjector],
  routes: pushRoutes,
  reactors: (deps) => [pushFanout(deps)],
};
