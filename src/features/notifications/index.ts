import type { Feature } from '../../deps.ts';
import { notificationsProjector, pruneHandledNotifications } from '../../../projections/notifications/index.ts';
import { retentionEnvKey } from '../../kernel/retention.ts';
import { readAsSite } from '../../kernel/tenancy/site.ts';
import { notificationsRoutes } from './http/notifications.routes.ts';
import { notificationProducer } from './notifications.producers.ts';
import { notificationFrames } from './notifications.frames.ts';

/** Notifications: raised by producers (flow runs, release publishes, `notify`), kept in each user's inbox. */
export const notificationsFeature: Feature = {
  name: 'notifications',
  projectors: [notificationsProjector],
  routes: notificationsRoutes,
  reactors: (deps) => [notificationProducer(deps)],
  frames: [notificationFrames],
  retention: () => [
    {
      kind: 'notifications',
      defaultDays: 90,
      envKey: retentionEnvKey('notifications'),
      describe:
        'Notifications raised and handled (by their recipient, or one of them) before the horizon; unhandled ones are kept.',
      prune: (db, siteId, before) => readAsSite(db, siteId, (trx) => pruneHandledNotifications(trx, siteId, before)),
    },
  ],
};

export { notify } from './notifications.commands.ts';
export { inboxViewer, receives, standingOf, type Standing } from './notifications.guard.ts';
export type { NotificationFrameData } from './notifications.frames.ts';
