import { generateVapidKeys } from '../../platform/push/vapid.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/setup/app.ts';
import { apiClient } from '../../../test/setup/api.ts';
import { createUser } from '../../../test/setup/users.ts';
import { systemMetadata } from '../../../test/support/metadata.ts';
import { newBrowser, openPush, startPushService, type PushService } from '../../../test/support/push-service.ts';
import { notify } from '../notifications/index.ts';
import type { Recipient } from '../../contracts/notifications/notifications.events.ts';
import { handleCommand } from '../../kernel/es/handle-command.ts';
import { pushSubscriptionDecider } from './push.decider.ts';
import { pushSubscriptionStream, subscriptionId } from '../../contracts/push/push.events.ts';
import { PUSH_FANOUT } from './push.fanout.ts';

/** Web Push end to end against a push service on loopback HTTPS that checks VAPID and decrypts what it receives. */
const vapid = generateVapidKeys();
const SUBJECT = 'mailto:push-ops@example.com';
const PASS = 'Long-enough-pass-1!';

let service: PushService;
let t: TestApp;
let admin: string;
let editor: string;
let otherAdmin: string;
const { call, ok } = apiClient(
  () => t,
  () => admin,
);

const raise = async (id: string, recipient: Recipient, siteId = 'main') => {
  await notify(t.deps, {
    siteId,
    notificationId: id,
    recipient,
    kind: 'incident',
    severity: 'critical',
    title: `Título ${id} – ünïcode`,
    body: 'Body of the notification',
    deepLink: `/incidents/${id}`,
    entityId: id,
    metadata: systemMetadata(siteId),
  });
  await t.deps.drainReactors(PUSH_FANOUT);
};
const sentTo = (path: string) => service.received.filter((r) => r.path === path);

beforeAll(async () => {
  service = await startPushService();
  t = await createTestApp({
    env: {
      VAPID_PUBLIC_KEY: vapid.pub,
      VAPID_PRIVATE_KEY: vapid.priv,
      VAPID_SUBJECT: SUBJECT,
      SVC_PUSH_ALLOW_PRIVATE: 'true',
      SVC_PUSH_CA_FILE: service.caFile,
      SVC_PUSH_TIMEOUT_MS: '1500',
    },
  });
  admin = await t.setup();
  await ok('POST', '/api/v1/sites', { id: 'other', name: 'Other' });
  editor = await createUser(t, 'ed@example.com', PASS, { main: 'editor' });
  otherAdmin = await createUser(t, 'oa@example.com', PASS, { other: 'admin' });
}, 60_000);
afterAll(async () => {
  await t?.close();
  await service?.close();
});

describe('Web Push delivery', () => {
  it('encrypts the notification for the browser and signs it for the push service (VAPID, aes128gcm)', async () => {
    const browser = newBrowser();
    await ok('POST', '/api/v1/push/subscriptions', browser.subscription(`${service.origin}/admin-1`));
    await raise('n-1', { type: 'admins' });
    const [req] = sentTo('/admin-1');
    expect(req, 'the push service received the notification').toBeDefined();
    expect(req!.headers.ttl).toBeDefined();
    const payload = await openPush(req!, browser, {
      origin: service.origin,
      vapidPublicKey: vapid.pub,
      subject: SUBJECT,
    });
    expect(payload).toEqual({
      id: 'n-1',
      kind: 'incident',
      severity: 'critical',
      title: 'Título n-1 – ünïcode',
      body: 'Body of the notification',
      deepLink: '/incidents/n-1',
      entityId: 'n-1',
      ts: expect.any(String),
    });
    // The inbox shows the same content.
    const inbox = (await ok('GET', '/api/v1/notifications')) as { id: string; title: string }[];
    expect(inbox.find((n) => n.id === 'n-1')?.title).toBe((payload as { title: string }).title);
  });

  it("sends only to the recipients' browsers on the notification's own site", async () => {
    const ed = newBrowser();
    await ok('POST', '/api/v1/push/subscriptions', ed.subscription(`${service.origin}/editor-1`), { as: editor });
    const oa = newBrowser();
    await ok('POST', '/api/v1/push/subscriptions', oa.subscription(`${service.origin}/other-admin-1`), {
      as: otherAdmin,
      site: 'other',
    });
    await raise('n-2', { type: 'admins' });
    expect(sentTo('/editor-1')).toHaveLength(0);
    expect(sentTo('/other-admin-1')).toHaveLength(0);
    await raise('n-3', { type: 'role', id: 'editor' });
    expect(sentTo('/editor-1')).toHaveLength(1);
    expect(
      await openPush(sentTo('/editor-1')[0]!, ed, {
        origin: service.origin,
        vapidPublicKey: vapid.pub,
        subject: SUBJECT,
      }),
    ).toMatchObject({ id: 'n-3' });
    expect(sentTo('/admin-1').map((r) => r.path)).toHaveLength(2); // n-1 and n-2, not n-3
    await raise('n-4', { type: 'admins' }, 'other');
    expect(sentTo('/other-admin-1')).toHaveLength(1);
    expect(sentTo('/admin-1')).toHaveLength(2);
  });

  it('removes a subscription the push service calls gone (410, 404), and keeps the others', async () => {
    await ok('POST', '/api/v1/push/subscriptions', newBrowser().subscription(`${service.origin}/gone/a`));
    await ok('POST', '/api/v1/push/subscriptions', newBrowser().subscription(`${service.origin}/missing/b`));
    const before = (await ok('GET', '/api/v1/push/status')).subscriptions as number;
    await raise('n-5', { type: 'admins' });
    expect(sentTo('/gone/a')).toHaveLength(1);
    expect(sentTo('/missing/b')).toHaveLength(1);
    expect((await ok('GET', '/api/v1/push/status')).subscriptions).toBe(before - 2);
  });

  it('bounds a push service that hangs by the timeout, and the request behind the notification never waits', async () => {
    await ok('POST', '/api/v1/push/subscriptions', newBrowser().subscription(`${service.origin}/hang/c`));
    await notify(t.deps, {
      siteId: 'main',
      notificationId: 'n-6',
      recipient: { type: 'admins' },
      kind: 'run',
      severity: 'info',
      title: 't',
      body: 'b',
      deepLink: null,
      entityId: null,
      metadata: systemMetadata('main'),
    });
    // Raising is done before any push goes out: the fan-out runs off the log, after it.
    expect(sentTo('/hang/c')).toHaveLength(0);
    // Without the timeout this drain would wait on the hanging service for ever (the test would time out).
    await t.deps.drainReactors(PUSH_FANOUT);
    expect(sentTo('/hang/c')).toHaveLength(1);
    expect(sentTo('/admin-1')).toHaveLength(4); // the others still got n-6
    await call('DELETE', '/api/v1/push/subscriptions', { endpoint: `${service.origin}/hang/c` });
  });

  it('POST /push/test sends to the site’s browsers and answers the dispatch summary (site admins only)', async () => {
    const res = await ok('POST', '/api/v1/push/test');
    expect(res.push).toMatchObject({ configured: true, attempted: 2, delivered: 2, gone: 0, failed: 0 });
    expect(res.realtime).toEqual({ available: true, delivered: 0 });
    expect(sentTo('/admin-1').at(-1)).toBeDefined();
    expect((await call('POST', '/api/v1/push/test', undefined, { as: editor })).statusCode).toBe(403);
    expect((await call('POST', '/api/v1/push/test', undefined, { as: null })).statusCode).toBe(401);
    const other = await ok('POST', '/api/v1/push/test', undefined, { as: otherAdmin, site: 'other' });
    expect(other.push).toMatchObject({ attempted: 1, delivered: 1 });
  });

  it('refuses a private endpoint at send time when private addresses are not allowed (checked after DNS)', async () => {
    const strict = await createTestApp({
      env: {
        VAPID_PUBLIC_KEY: vapid.pub,
        VAPID_PRIVATE_KEY: vapid.priv,
        VAPID_SUBJECT: SUBJECT,
        SVC_PUSH_CA_FILE: service.caFile,
      },
    });
    try {
      const a = await strict.setup();
      const refused = await strict.call({
        method: 'POST',
        url: '/api/v1/push/subscriptions',
        as: a,
        site: 'main',
        payload: newBrowser().subscription(`${service.origin}/strict`),
      });
      expect(refused.statusCode).toBe(400);
      expect(refused.json().errors[0].extensions.reason).toBe('private_address');
      // One stored while private addresses were allowed (or a name that resolves to one) is refused when sent.
      const endpoint = `${service.origin}/strict`;
      const id = subscriptionId('main', endpoint);
      await handleCommand(
        strict.deps.store,
        pushSubscriptionDecider,
        pushSubscriptionStream('main', id),
        {
          type: 'SaveSubscription',
          data: {
            subscriptionId: id,
            userId: 'someone',
            endpoint,
            keys: newBrowser().subscription(endpoint).keys,
            now: new Date().toISOString(),
          },
        },
        { metadata: systemMetadata('main') },
      );
      const res = await strict.call({ method: 'POST', url: '/api/v1/push/test', as: a, site: 'main' });
      expect(res.json().data.push).toMatchObject({ attempted: 1, delivered: 0, failed: 1 });
      expect(sentTo('/strict')).toHaveLength(0);
    } finally {
      await strict.close();
    }
  });
});
