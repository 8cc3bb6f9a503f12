import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { fold } from '../../kernel/es/decider.ts';
import { deciderSpec, runCommands } from '../../../test/support/decider-spec.ts';
import { glossaryDecider, type GlossaryCommand } from './glossary.decider.ts';
import type { GlossaryEvent, GlossaryTermChanges } from '../../contracts/tm/tm.events.ts';

const given = deciderSpec(glossaryDecider);
const t1 = '2026-03-01T10:00:00.000Z';
const t2 = '2026-03-02T10:00:00.000Z';
const values = { sourceLang: 'en', targetLang: 'de', term: 'checkout', translation: 'Kasse', caseSensitive: false };
const create: GlossaryCommand = { type: 'CreateGlossaryTerm', data: { termId: 't1', now: t1, by: 'u1', ...values } };
const update = (changes: GlossaryTermChanges): GlossaryCommand => ({
  type: 'UpdateGlossaryTerm',
  data: { termId: 't1', now: t2, by: 'u2', changes },
});
const del: GlossaryCommand = { type: 'DeleteGlossaryTerm', data: { termId: 't1', now: t2, by: 'u2' } };
const created: GlossaryEvent = { type: 'GlossaryTermCreated', data: { termId: 't1', ...values, at: t1, by: 'u1' } };
const updated = (changes: GlossaryTermChanges): GlossaryEvent => ({
  type: 'GlossaryTermUpdated',
  data: { termId: 't1', changes, at: t2, by: 'u2' },
});
const deleted: GlossaryEvent = { type: 'GlossaryTermDeleted', data: { termId: 't1', at: t2, by: 'u2' } };

describe('GlossaryTerm', () => {
  describe('when absent', () => {
    it('creates the term', () => given([]).when(create).then([created]));
    it('rejects an update with NOT_FOUND', () =>
      given([])
        .when(update({ translation: 'Kassa' }))
        .thenThrows('NOT_FOUND'));
    it('rejects a delete with NOT_FOUND', () => given([]).when(del).thenThrows('NOT_FOUND'));
  });

  describe('when created', () => {
    it('rejects a second create with CONFLICT', () => given([created]).when(create).thenThrows('CONFLICT'));
    it('records only the values that differ', () =>
      given([created])
        .when(update({ term: 'checkout', translation: 'Kassa', caseSensitive: true }))
        .then([updated({ translation: 'Kassa', caseSensitive: true })]));
    it('updates without a new event when nothing differs', () =>
      given([created])
        .when(update({ term: 'checkout', caseSensitive: false }))
        .then([]));
    it('updates without a new event when no value is given', () => given([created]).when(update({})).then([]));
    it('deletes the term', () => given([created]).when(del).then([deleted]));
  });

  describe('when deleted', () => {
    it('rejects an update with NOT_FOUND', () =>
      given([created, deleted])
        .when(update({ translation: 'Kassa' }))
        .thenThrows('NOT_FOUND'));
    it('rejects a second delete with NOT_FOUND', () => given([created, deleted]).when(del).thenThrows('NOT_FOUND'));
    it('creates the term again on its stream', () => given([created, deleted]).when(create).then([created]));
  });

  describe('evolve', () => {
    it('applies the changes and stamps the update, keeping the creation', () =>
      expect(fold(glossaryDecider, [created, updated({ translation: 'Kassa' })])).toEqual({
        term: { id: 't1', ...values, translation: 'Kassa', createdBy: 'u1', createdAt: t1, updatedAt: t2 },
      }));
    it('ignores an update of no term', () =>
      expect(fold(glossaryDecider, [updated({ translation: 'Kassa' })])).toEqual({ term: null }));
  });

  const commandArb: fc.Arbitrary<GlossaryCommand> = fc.oneof(
    fc.constant(create),
    fc
      .record(
        {
          term: fc.constantFrom('checkout', 'cart'),
          translation: fc.constantFrom('Kasse', 'Kassa'),
          caseSensitive: fc.boolean(),
        },
        { requiredKeys: [] },
      )
      .map(update),
    fc.constant(del),
  );

  it('folding the accepted events gives the state reached step by step', () =>
    fc.assert(
      fc.property(fc.array(commandArb, { maxLength: 20 }), (commands) => {
        const { state, events } = runCommands(glossaryDecider, commands);
        expect(fold(glossaryDecider, events)).toEqual(state);
      }),
    ));

  it('never records an update that changes nothing', () =>
    fc.assert(
      fc.property(fc.array(commandArb, { maxLength: 20 }), (commands) => {
        for (const e of runCommands(glossaryDecider, commands).events)
          if (e.type === 'GlossaryTermUpdated') expect(Object.keys(e.data.changes).length).toBeGreaterThan(0);
      }),
    ));
});
