import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { deciderSpec, runCommands } from '../../../test/support/decider-spec.ts';
import {
  inboxDecider,
  notificationDecider,
  type HandleNotifications,
  type RaiseNotification,
} from './notifications.decider.ts';
import type { NotificationRaised } from '../../contracts/notifications/notifications.events.ts';

const given = deciderSpec(notificationDecider);
const now = '2026-03-01T10:00:00.000Z';
const content = {
  notificationId: 'n1',
  recipient: { type: 'admins' as const },
  kind: 'incident' as const,
  severity: 'critical' as const,
  title: 'CI failed on main',
  body: 'The build of abc1234 failed.',
  deepLink: '/settings/git',
  entityId: null,
};
const raise = (over: Partial<RaiseNotification['data']> = {}): RaiseNotification => ({
  type: 'RaiseNotification',
  data: { ...content, now, ...over },
});
const raised: NotificationRaised = { type: 'NotificationRaised', data: { ...content, at: now } };

describe('Notification', () => {
  describe('when not raised', () => {
    it('raises it for its recipient', () => given([]).when(raise()).then([raised]));
    it('raises one for a single user', () =>
      given([])
        .when(raise({ recipient: { type: 'user', id: 'u1' }, kind: 'approval', severity: 'info' }))
        .then([
          {
            ...raised,
            data: { ...raised.data, recipient: { type: 'user', id: 'u1' }, kind: 'approval', severity: 'info' },
          },
        ]));
  });

  describe('when raised', () => {
    it('raises the same id again without a new event', () => given([raised]).when(raise()).then([]));
    it('records nothing even when the redelivery says something else', () =>
      given([raised])
        .when(raise({ title: 'Another title', now: '2026-03-01T11:00:00.000Z' }))
        .then([]));
  });

  it('raises at most once, whatever the redeliveries', () =>
    fc.assert(
      fc.property(fc.array(fc.constantFrom('first', 'again'), { minLength: 1, maxLength: 10 }), (titles) => {
        const { state, events } = runCommands(
          notificationDecider,
          titles.map((title) => raise({ title })),
        );
        expect(events).toEqual([{ ...raised, data: { ...raised.data, title: titles[0]! } }]);
        expect(state).toEqual({ raised: true });
      }),
    ));
});

describe('Inbox', () => {
  const givenInbox = deciderSpec(inboxDecider);
  const handle = (notificationIds: string[], handled = true): HandleNotifications => ({
    type: 'HandleNotifications',
    data: { userId: 'u1', notificationIds, handled, now },
  });

  it('records a marking once per notification', () =>
    givenInbox([])
      .when(handle(['n1', 'n2', 'n1']))
      .then([
        { type: 'NotificationsHandled', data: { userId: 'u1', notificationIds: ['n1', 'n2'], handled: true, at: now } },
      ]));
  it('records an unmarking', () =>
    givenInbox([])
      .when(handle(['n1'], false))
      .then([
        { type: 'NotificationsHandled', data: { userId: 'u1', notificationIds: ['n1'], handled: false, at: now } },
      ]));
  it('records nothing for no notifications', () => givenInbox([]).when(handle([])).then([]));
});
