import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fold } from '../../kernel/es/decider.ts';
import { deciderSpec, runCommands } from '../../../test/support/decider-spec.ts';
import { DELIVERY_WINDOW_MS, deliveryDecider, type DeliveryCommand } from './delivery.decider.ts';
import { retryDelay, RETRY_BASE_MS, RETRY_CAP_MS } from './delivery.sender.ts';
import { MAX_WEBHOOKS, webhooksDecider, type ChangeWebhooks } from './webhook.decider.ts';
import type { WebhookDefinition, WebhookDeliveryEvent, WebhookEvent } from '../../contracts/webhooks/webhook.events.ts';

const now = '2026-03-01T10:00:00.000Z';
const def = (name: string, more: Partial<WebhookDefinition> = {}): WebhookDefinition => ({
  name,
  url: 'https://in.example.com/',
  events: ['items.create'],
  collections: null,
  enabled: true,
  ...more,
});
const change = (data: Partial<ChangeWebhooks['data']>): ChangeWebhooks => ({
  type: 'ChangeWebhooks',
  data: { creates: [], updates: [], deletes: [], now, by: 'u1', ...data },
});
const created = (webhookId: string, name: string): WebhookEvent => ({
  type: 'WebhookCreated',
  data: { webhookId, ...def(name), secret: 'pii:x', at: now, by: 'u1' },
});

describe('Webhooks of a site', () => {
  const given = deciderSpec(webhooksDecider);
  it('refuses a second webhook of a name with CONFLICT', () =>
    given([created('a', 'orders')])
      .when(change({ creates: [{ webhookId: 'b', definition: def('orders'), secret: 'pii:y' }] }))
      .thenThrows('CONFLICT'));
  it('lets one change free a name and take it in the same decision', () =>
    given([created('a', 'orders')])
      .when(
        change({
          deletes: ['a'],
          creates: [{ webhookId: 'b', definition: def('orders'), secret: 'pii:y' }],
        }),
      )
      .then([
        { type: 'WebhookDeleted', data: { webhookId: 'a', at: now, by: 'u1' } },
        { type: 'WebhookCreated', data: { webhookId: 'b', ...def('orders'), secret: 'pii:y', at: now, by: 'u1' } },
      ]));
  it('records only the settings that change', () =>
    given([created('a', 'orders')])
      .when(change({ updates: [{ webhookId: 'a', changes: { ...def('orders'), enabled: false } }] }))
      .then([{ type: 'WebhookUpdated', data: { webhookId: 'a', changes: { enabled: false }, at: now, by: 'u1' } }]));
  it('refuses an unknown webhook with NOT_FOUND and a bad URL with VALIDATION_FAILED', () => {
    given([])
      .when(change({ deletes: ['x'] }))
      .thenThrows('NOT_FOUND');
    given([created('a', 'orders')])
      .when(change({ updates: [{ webhookId: 'a', changes: { url: 'ftp://x/' } }] }))
      .thenThrows('VALIDATION_FAILED');
  });
  it(`refuses a webhook beyond ${MAX_WEBHOOKS} on a site`, () => {
    const full = Array.from({ length: MAX_WEBHOOKS }, (_, i) => created(`w${i}`, `n${i}`));
    given(full)
      .when(change({ creates: [{ webhookId: 'x', definition: def('x'), secret: 'pii:x' }] }))
      .thenThrows('CONFLICT');
    given(full.slice(1))
      .when(change({ creates: [{ webhookId: 'x', definition: def('x'), secret: 'pii:x' }] }))
      .then([{ type: 'WebhookCreated', data: { webhookId: 'x', ...def('x'), secret: 'pii:x', at: now, by: 'u1' } }]);
  });
  it('keeps names unique whatever the commands', () => {
    const names = fc.constantFrom('a', 'b', 'c');
    const ids = fc.constantFrom('1', '2', '3', '4');
    const command = fc.record({
      creates: fc.array(
        fc.record({ webhookId: ids, definition: names.map((n) => def(n)), secret: fc.constant('pii:s') }),
        { maxLength: 2 },
      ),
      updates: fc.array(fc.record({ webhookId: ids, changes: fc.record({ name: names }) }), { maxLength: 2 }),
      deletes: fc.array(ids, { maxLength: 2 }),
    });
    fc.assert(
      fc.property(fc.array(command, { maxLength: 8 }), (cmds) => {
        const { state, events } = runCommands(webhooksDecider, cmds.map(change));
        const names = state.webhooks.map((w) => w.name);
        expect(new Set(names).size).toBe(names.length);
        expect(fold(webhooksDecider, events)).toEqual(state);
      }),
    );
  });
});

describe('Delivery', () => {
  const payload = { type: 'items.create' as const, timestamp: now, data: {} };
  const schedule: DeliveryCommand = {
    type: 'ScheduleDelivery',
    data: { deliveryId: 'd', webhookId: 'w', sourceEventId: 'e', event: 'items.create', payload, now },
  };
  const attempt = (at: number, status: number | null, retryDelayMs = 1000): DeliveryCommand => ({
    type: 'RecordAttempt',
    data: { deliveryId: 'd', now: new Date(Date.parse(now) + at).toISOString(), status, error: null, retryDelayMs },
  });
  it('is scheduled once', () => {
    const { events } = runCommands(deliveryDecider, [schedule, schedule]);
    expect(events.map((e) => e.type)).toEqual(['WebhookDeliveryScheduled']);
  });
  it('is tried until delivered, then nothing more is recorded', () => {
    const { state, events } = runCommands(deliveryDecider, [
      schedule,
      attempt(0, 500),
      attempt(1000, 204),
      attempt(2000, 500),
    ]);
    expect(events.map((e) => e.type)).toEqual([
      'WebhookDeliveryScheduled',
      'WebhookDeliveryAttempted',
      'WebhookDeliveryAttempted',
    ]);
    expect(state).toMatchObject({ status: 'delivered', attempts: 2, nextAttemptAt: null });
  });
  it('never plans a try past its window, and is abandoned at the end of it', () =>
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: RETRY_CAP_MS }), { minLength: 1, maxLength: 80 }), (delays) => {
        let at = 0;
        let last = 0;
        const cmds: DeliveryCommand[] = [schedule];
        for (const d of delays) {
          cmds.push(attempt(at, 503, d));
          last = at;
          at += Math.max(d, 1);
        }
        const { state, events } = runCommands(deliveryDecider, cmds);
        for (const e of events as WebhookDeliveryEvent[])
          if (e.type === 'WebhookDeliveryAttempted' && e.data.nextAttemptAt)
            expect(Date.parse(e.data.nextAttemptAt) - Date.parse(now)).toBeLessThanOrEqual(DELIVERY_WINDOW_MS);
        expect(state).toMatchObject({ status: last >= DELIVERY_WINDOW_MS ? 'abandoned' : 'pending' });
        expect(fold(deliveryDecider, events)).toEqual(state);
      }),
    ));
  it('waits a full-jitter backoff: at most base · 2^(n−1), capped', () => {
    expect(retryDelay(1, (n) => n)).toBe(RETRY_BASE_MS);
    expect(retryDelay(3, (n) => n)).toBe(4 * RETRY_BASE_MS);
    expect(retryDelay(40, (n) => n)).toBe(RETRY_CAP_MS);
    expect(retryDelay(5, () => 0)).toBe(0);
    for (let i = 0; i < 50; i++) expect(retryDelay(2)).toBeLessThanOrEqual(2 * RETRY_BASE_MS);
  });
});
