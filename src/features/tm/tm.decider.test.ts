import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fold } from '../../kernel/es/decider.ts';
import { tmEntryDecider, type TmEntryCommand, type TmEntryState } from './tm.decider.ts';
import type { TmEntryEvent } from '../../contracts/tm/tm.events.ts';

const stamp = { entryId: 'e1', now: '2026-01-01T00:00:00.000Z', by: 'u1' };
const upsert = (data: object = {}): TmEntryCommand => ({
  type: 'UpsertTmEntry',
  data: { ...stamp, sourceLang: 'en', targetLang: 'de', source: 'Hello', target: 'Hallo', ...data },
});
const given = (events: TmEntryEvent[]) => fold(tmEntryDecider, events);
const run = (cmd: TmEntryCommand, s: TmEntryState = tmEntryDecider.initialState()) => tmEntryDecider.decide(cmd, s);

describe('TM entry', () => {
  it('creates with quality 100 and origin human when none is given', () => {
    const [e] = run(upsert());
    expect(e).toEqual({
      type: 'TmEntryCreated',
      data: {
        entryId: 'e1',
        sourceLang: 'en',
        targetLang: 'de',
        source: 'Hello',
        target: 'Hallo',
        quality: 100,
        entrySource: 'human',
        at: stamp.now,
        by: 'u1',
      },
    });
  });

  describe('when it exists', () => {
    const created = given(run(upsert()));
    it('records only what an upsert changes, and nothing for the same values', () => {
      expect(run(upsert({ target: 'Servus' }), created)).toEqual([
        { type: 'TmEntryUpdated', data: { entryId: 'e1', changes: { target: 'Servus' }, at: stamp.now, by: 'u1' } },
      ]);
      expect(run(upsert({ source: ' hello ', target: 'Hallo' }), created)).toHaveLength(1);
      expect(run(upsert(), created)).toEqual([]);
    });

    it('refuses an upsert of another source on its stream with CONFLICT', () => {
      expect(() => run(upsert({ source: 'Goodbye' }), created)).toThrow(expect.objectContaining({ code: 'CONFLICT' }));
    });
  });

  it('refuses updates and deletes of an absent entry with NOT_FOUND', () => {
    expect(() => run({ type: 'DeleteTmEntry', data: stamp })).toThrow(expect.objectContaining({ code: 'NOT_FOUND' }));
    expect(() => run({ type: 'UpdateTmEntry', data: { ...stamp, changes: { quality: 1 } } })).toThrow(
      expect.objectContaining({ code: 'NOT_FOUND' }),
    );
  });

  const commandArb: fc.Arbitrary<TmEntryCommand> = fc.oneof(
    fc.record({ target: fc.string({ minLength: 1 }), quality: fc.integer({ min: 0, max: 100 }) }).map((d) => upsert(d)),
    fc
      .record({ quality: fc.integer({ min: 0, max: 100 }), target: fc.constantFrom('a', 'b') })
      .map((changes) => ({ type: 'UpdateTmEntry' as const, data: { ...stamp, changes } })),
    fc.constant({ type: 'DeleteTmEntry' as const, data: stamp }),
  );

  it('evolve accepts every event decide emits, and a live entry always has its source', () =>
    fc.assert(
      fc.property(fc.array(commandArb, { maxLength: 20 }), (cmds) => {
        let s = tmEntryDecider.initialState();
        for (const c of cmds) {
          let events: TmEntryEvent[] = [];
          try {
            events = tmEntryDecider.decide(c, s);
          } catch {
            continue;
          }
          s = events.reduce(tmEntryDecider.evolve, s);
          if (s.entry) expect(s.entry.source).toBe('Hello');
          // Deciding the same command again changes nothing more (idempotent upserts and updates).
          if (c.type !== 'DeleteTmEntry') expect(tmEntryDecider.decide(c, s)).toEqual([]);
        }
      }),
    ));
});
