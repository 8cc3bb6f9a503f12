import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { fold } from '../../../kernel/es/decider.ts';
import { deciderSpec, runCommands } from '../../../../test/support/decider-spec.ts';
import { presetDecider, type PresetCommand } from './preset.decider.ts';
import type { TransformPresetEvent } from '../../../contracts/files/preset.events.ts';

const given = deciderSpec(presetDecider);
const t1 = '2026-03-01T10:00:00.000Z';
const t2 = '2026-03-02T10:00:00.000Z';
type Changes = { key?: string; name?: string; dsl?: string };
const create = (id: string, key: string): PresetCommand => ({
  type: 'CreatePreset',
  data: { id, key, name: `Preset ${key}`, dsl: 'w=800,h=600,fit=cover', by: 'u1', now: t1 },
});
const created = (id: string, key: string): TransformPresetEvent => ({
  type: 'TransformPresetCreated',
  data: { id, key, name: `Preset ${key}`, dsl: 'w=800,h=600,fit=cover', by: 'u1', at: t1 },
});
const update = (id: string, changes: Changes): PresetCommand => ({
  type: 'UpdatePreset',
  data: { id, ...changes, by: 'u2', now: t2 },
});
const updated = (id: string, changes: Changes): TransformPresetEvent => ({
  type: 'TransformPresetUpdated',
  data: { id, ...changes, by: 'u2', at: t2 },
});
const del = (id: string): PresetCommand => ({ type: 'DeletePreset', data: { id, by: 'u2', now: t2 } });
const deleted = (id: string): TransformPresetEvent => ({
  type: 'TransformPresetDeleted',
  data: { id, by: 'u2', at: t2 },
});

const two = [created('p1', 'thumb'), created('p2', 'hero')];

describe('TransformPresets', () => {
  describe('CreatePreset', () => {
    it('creates a preset', () =>
      given([])
        .when(create('p1', 'thumb'))
        .then([created('p1', 'thumb')]));
    it('rejects a key the site has with CONFLICT', () => given(two).when(create('p3', 'thumb')).thenThrows('CONFLICT'));
    it('allows the key of a deleted preset', () =>
      given([...two, deleted('p1')])
        .when(create('p3', 'thumb'))
        .then([created('p3', 'thumb')]));
  });

  describe('UpdatePreset', () => {
    it('changes only what it names', () =>
      given(two)
        .when(update('p1', { dsl: 'w=200' }))
        .then([updated('p1', { dsl: 'w=200' })]));
    it('changes the key to a free one', () =>
      given(two)
        .when(update('p1', { key: 'small' }))
        .then([updated('p1', { key: 'small' })]));
    it('keeps its own key', () =>
      given(two)
        .when(update('p1', { key: 'thumb', name: 'Thumbnail' }))
        .then([updated('p1', { key: 'thumb', name: 'Thumbnail' })]));
    it('rejects another preset’s key with CONFLICT', () =>
      given(two)
        .when(update('p1', { key: 'hero' }))
        .thenThrows('CONFLICT'));
    it('rejects an unknown preset with NOT_FOUND', () =>
      given(two)
        .when(update('p9', { name: 'X' }))
        .thenThrows('NOT_FOUND'));
    it('rejects a deleted preset with NOT_FOUND', () =>
      given([...two, deleted('p1')])
        .when(update('p1', { name: 'X' }))
        .thenThrows('NOT_FOUND'));
  });

  describe('DeletePreset', () => {
    it('deletes a preset', () =>
      given(two)
        .when(del('p1'))
        .then([deleted('p1')]));
    it('rejects an unknown preset with NOT_FOUND', () => given(two).when(del('p9')).thenThrows('NOT_FOUND'));
    it('rejects a second delete with NOT_FOUND', () =>
      given([...two, deleted('p1')])
        .when(del('p1'))
        .thenThrows('NOT_FOUND'));
  });

  it('evolve stamps creation and the last change', () =>
    expect(fold(presetDecider, [...two, updated('p1', { key: 'small', dsl: 'w=200' })]).get('p1')).toEqual({
      id: 'p1',
      key: 'small',
      name: 'Preset thumb',
      dsl: 'w=200',
      createdAt: t1,
      createdBy: 'u1',
      updatedAt: t2,
      updatedBy: 'u2',
    }));

  // Ids are new on create (the command mints them); updates and deletes aim at the first few of them.
  const idArb = fc.constantFrom('p0', 'p1', 'p2', 'p3');
  const keyArb = fc.constantFrom('thumb', 'hero', 'small');
  const stepArb = fc.oneof(
    keyArb.map((key) => (i: number) => create(`p${i}`, key)),
    fc.record({ id: idArb, key: keyArb, name: fc.constant('Renamed') }, { requiredKeys: ['id'] }).map(
      ({ id, ...changes }) =>
        () =>
          update(id, changes),
    ),
    idArb.map((id) => () => del(id)),
  );
  const commandsArb = fc.array(stepArb, { maxLength: 30 }).map((steps) => steps.map((step, i) => step(i)));

  it('folding the accepted events gives the state reached step by step', () =>
    fc.assert(
      fc.property(commandsArb, (commands) => {
        const { state, events } = runCommands(presetDecider, commands);
        expect(fold(presetDecider, events)).toEqual(state);
      }),
    ));

  it('keeps keys unique on the site', () =>
    fc.assert(
      fc.property(commandsArb, (commands) => {
        const keys = [...runCommands(presetDecider, commands).state.values()].map((p) => p.key);
        expect(new Set(keys).size).toBe(keys.length);
      }),
    ));
});
