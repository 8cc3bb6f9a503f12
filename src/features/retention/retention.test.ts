import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../config.ts';
import type { AppDeps } from '../../deps.ts';
import { fold } from '../../kernel/es/decider.ts';
import { RETENTION_KINDS, retentionEnvKey } from '../../kernel/retention.ts';
import { features } from '../index.ts';
import { retentionDecider, type RecordRetentionRun } from './retention.decider.ts';
import { resolveHorizons } from './retention.horizons.ts';
import { catalogue } from './retention.kinds.ts';

const declared = features.flatMap((f) => f.retention?.({} as AppDeps) ?? []);
const entries = catalogue(declared);

describe('the retention catalogue', () => {
  it('holds every kind of the contract once, declared by a slice or planned, each read from its variable', () => {
    expect(entries.map((e) => e.kind)).toEqual([...RETENTION_KINDS]);
    expect(entries.filter((e) => e.available).map((e) => e.kind)).toEqual([
      'notifications',
      'mail_outbox',
      'webhook_deliveries',
      'flow_runs',
      'sar_exports',
      'sessions',
    ]);
    for (const e of entries) {
      expect(e.envKey).toBe(retentionEnvKey(e.kind));
      expect((loadConfig({ [e.envKey]: '12' }) as unknown as Record<string, unknown>)[e.envKey]).toBe(12);
      expect(() => loadConfig({ [e.envKey]: '0' })).toThrow(e.envKey);
      expect(() => loadConfig({ [e.envKey]: '36501' })).toThrow(e.envKey);
    }
  });

  it('refuses a kind outside the contract, or one declared twice', () => {
    const [one] = declared;
    expect(() => catalogue([{ ...one!, kind: 'other' as never }])).toThrow(/unknown retention kind/);
    expect(() => catalogue([one!, one!])).toThrow(/declared twice/);
  });
});

describe('resolveHorizons', () => {
  const config = loadConfig({ SVC_RETENTION_WEBHOOK_DELIVERIES_DAYS: '14', SVC_RETENTION_SESSIONS_DAYS: '20' });
  const of = (settings: Record<string, unknown> | null) =>
    new Map(resolveHorizons(entries, settings, config).map((h) => [h.kind, [h.days, h.source]]));

  it('takes the site setting, then the environment, then the default', () => {
    const h = of({ retention: { webhook_deliveries: 3, mail_outbox: 5 } });
    expect(h.get('webhook_deliveries')).toEqual([3, 'site']);
    expect(h.get('mail_outbox')).toEqual([5, 'site']);
    expect(of(null).get('webhook_deliveries')).toEqual([14, 'env']);
    expect(of(null).get('mail_outbox')).toEqual([90, 'default']);
  });

  it('never lets a site set an instance kind, nor reads inherited or invalid stored values', () => {
    const stored = JSON.parse('{"retention":{"sessions":2,"__proto__":{"mail_outbox":1},"activity":0}}');
    const h = of(stored);
    expect(h.get('sessions')).toEqual([20, 'env']);
    expect(h.get('mail_outbox')).toEqual([90, 'default']);
    expect(h.get('activity')).toEqual([365, 'default']);
    expect(of({ retention: 'x' }).get('webhook_deliveries')).toEqual([14, 'env']);
  });
});

describe('Retention decider', () => {
  const runArb = fc.record({
    siteId: fc.constantFrom('main', 'other', '_system'),
    at: fc.date({ noInvalidDate: true }).map((d) => d.toISOString()),
    counts: fc.dictionary(fc.constantFrom(...RETENTION_KINDS), fc.nat()),
    horizons: fc.constant({}),
  });

  it('records every run, and evolve counts what decide emits', () =>
    fc.assert(
      fc.property(fc.array(runArb, { maxLength: 20 }), (runs) => {
        let s = retentionDecider.initialState();
        for (const data of runs) {
          const cmd: RecordRetentionRun = { type: 'RecordRetentionRun', data };
          const events = retentionDecider.decide(cmd, s);
          expect(events).toEqual([{ type: 'RetentionRun', data }]);
          s = fold(retentionDecider, events, s);
        }
        expect(s.runs).toBe(runs.length);
        expect(s.lastRunAt).toBe(runs.at(-1)?.at ?? null);
      }),
    ));
});
