import { describe, expect, it } from 'vitest';
import type { StoredEvent } from './event.ts';
import { Upcasters } from './upcast.ts';

const stored = (type: string, schemaVersion: number, data: unknown): StoredEvent => ({
  type,
  data,
  schemaVersion,
  eventId: 'e-1',
  metadata: {
    siteId: 'main',
    actor: { type: 'user', id: 'u-1' },
    correlationId: 'c',
    causationId: null,
    requestId: null,
    occurredAt: '2026-01-01T00:00:00.000Z',
  },
  streamId: 'main/thing/1',
  siteId: 'main',
  streamVersion: 1,
  globalPosition: 1n,
  checkpoint: '1:1',
  createdAt: new Date('2026-01-01T00:00:00.000Z'),
});

describe('Upcasters', () => {
  const registry = () =>
    new Upcasters().register(
      { type: 'PriceSet', fromVersion: 1, up: (d) => ({ cents: Math.round((d as { euros: number }).euros * 100) }) },
      { type: 'PriceSet', fromVersion: 2, up: (d) => ({ ...(d as object), currency: 'EUR' }) },
      { type: 'CostNoted', fromVersion: 1, toType: 'PriceSet', toVersion: 2, up: (d) => d },
    );

  it('brings an event through every step to the current version', () => {
    const e = registry().upcast(stored('PriceSet', 1, { euros: 1.5 }));
    expect([e.type, e.schemaVersion, e.data]).toEqual(['PriceSet', 3, { cents: 150, currency: 'EUR' }]);
  });

  it('turns a retired type into the type that replaced it, then on to its current version', () => {
    const e = registry().upcast(stored('CostNoted', 1, { cents: 99 }));
    expect([e.type, e.schemaVersion, e.data]).toEqual(['PriceSet', 3, { cents: 99, currency: 'EUR' }]);
  });

  it('leaves an event already in the current shape, and one of a type without upcasters, as it is', () => {
    const current = stored('PriceSet', 3, { cents: 1, currency: 'EUR' });
    const other = stored('ThingHappened', 1, { n: 1 });
    expect(registry().upcast(current)).toBe(current);
    expect(registry().upcast(other)).toBe(other);
  });

  it('keeps the stored event itself and its metadata, changing only type, version and data', () => {
    const original = stored('PriceSet', 2, { cents: 5 });
    const e = registry().upcast(original);
    expect(original).toMatchObject({ schemaVersion: 2, data: { cents: 5 } });
    expect(e).toMatchObject({ eventId: 'e-1', streamId: 'main/thing/1', metadata: original.metadata });
  });

  it('stamps new events with the version the last step makes, 1 for a type without upcasters', () => {
    const r = registry();
    expect(r.currentVersion('PriceSet')).toBe(3);
    expect(r.currentVersion('ThingHappened')).toBe(1);
  });

  it('refuses two upcasters for the same type and version', () => {
    expect(() =>
      new Upcasters().register(
        { type: 'A', fromVersion: 1, up: (d) => d },
        { type: 'A', fromVersion: 1, up: (d) => d },
      ),
    ).toThrow(/two upcasters for A v1/);
  });

  it('refuses a chain that comes back to where it started', () => {
    const r = new Upcasters().register(
      { type: 'A', fromVersion: 1, toType: 'B', toVersion: 1, up: (d) => d },
      { type: 'B', fromVersion: 1, toType: 'A', toVersion: 1, up: (d) => d },
    );
    expect(() => r.upcast(stored('A', 1, {}))).toThrow(/cycle/);
  });
});
