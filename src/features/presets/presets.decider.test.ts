import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fold } from '../../kernel/es/decider.ts';
import { deciderSpec, runCommands } from '../../../test/support/decider-spec.ts';
import { MAX_USER_PRESETS, presetsDecider, type PresetCommand } from './presets.decider.ts';
import { scopeOf, type PresetDefinition, type PresetEvent } from '../../contracts/presets/presets.events.ts';
import { resolveOwner } from './presets.ownership.ts';

const now = '2026-03-01T10:00:00.000Z';
const query = { fields: null, filter: null, sort: null, limit: null, search: null };
const def = (more: Partial<PresetDefinition> = {}): PresetDefinition => ({
  collection: 'posts',
  userId: null,
  roleId: null,
  bookmark: null,
  layout: null,
  layoutOptions: null,
  query,
  ...more,
});
const create = (presetId: string, more: Partial<PresetDefinition> = {}): PresetCommand => ({
  type: 'CreatePreset',
  data: { presetId, definition: def(more), now, by: 'u1' },
});
const created = (presetId: string, more: Partial<PresetDefinition> = {}): PresetEvent => ({
  type: 'PresetCreated',
  data: { ...def(more), presetId, at: now, by: 'u1' },
});
const update = (presetId: string, changes: Partial<PresetDefinition>): PresetCommand => ({
  type: 'UpdatePreset',
  data: { presetId, changes, now, by: 'u1' },
});

describe('Presets of a site', () => {
  const given = deciderSpec(presetsDecider);
  describe('when a scope has a default view of a collection', () => {
    it('refuses a second default of that scope with CONFLICT', () =>
      given([created('a', { userId: 'u1' })])
        .when(create('b', { userId: 'u1' }))
        .thenThrows('CONFLICT'));
    it('accepts a default of another scope, owner or collection', () => {
      given([created('a', { userId: 'u1' })])
        .when(create('b', { roleId: 'editor' }))
        .then([created('b', { roleId: 'editor' })]);
      given([created('a', { userId: 'u1' })])
        .when(create('b', { userId: 'u2' }))
        .then([created('b', { userId: 'u2' })]);
      given([created('a')])
        .when(create('b', { collection: 'pages' }))
        .then([created('b', { collection: 'pages' })]);
    });
    it('refuses a move into a scope that has its default already', () =>
      given([created('a', { userId: 'u1' }), created('b')])
        .when(update('a', { userId: null }))
        .thenThrows('CONFLICT'));
  });
  it('keeps one user within their own share, leaving room for the others', () => {
    const mine = Array.from({ length: MAX_USER_PRESETS }, (_, i) =>
      created(`m${i}`, { userId: 'u1', bookmark: `b${i}` }),
    );
    given(mine)
      .when(create('one-more', { userId: 'u1', bookmark: 'extra' }))
      .thenThrows('CONFLICT');
    given(mine)
      .when(create('theirs', { userId: 'u2', bookmark: 'extra' }))
      .then([created('theirs', { userId: 'u2', bookmark: 'extra' })]);
  });
  it('refuses a bookmark name taken in the scope and collection with CONFLICT', () =>
    given([created('a', { bookmark: 'mine' })])
      .when(create('b', { bookmark: 'mine' }))
      .thenThrows('CONFLICT'));
  it('records only the settings that change, and a given query always', () =>
    given([created('a', { layout: 'tabular' })])
      .when(update('a', { layout: 'tabular', bookmark: 'x', query }))
      .then([
        { type: 'PresetUpdated', data: { presetId: 'a', changes: { bookmark: 'x', query }, at: now, by: 'u1' } },
      ]));
  it('refuses an unknown preset with NOT_FOUND and a user and role together with VALIDATION_FAILED', () => {
    given([])
      .when({ type: 'DeletePreset', data: { presetId: 'x', now, by: 'u1' } })
      .thenThrows('NOT_FOUND');
    given([])
      .when(create('a', { userId: 'u1', roleId: 'editor' }))
      .thenThrows('VALIDATION_FAILED');
  });
  it('keeps one default per owner and collection and unique bookmark names whatever the commands', () => {
    const ids = fc.constantFrom('1', '2', '3', '4');
    const owner = fc.constantFrom<Partial<PresetDefinition>>(
      { userId: 'u1', roleId: null },
      { userId: null, roleId: 'r1' },
      { userId: null, roleId: null },
    );
    const more = fc.record({
      bookmark: fc.constantFrom(null, 'a', 'b'),
      collection: fc.constantFrom('posts', 'pages'),
    });
    const command = fc.oneof(
      fc.tuple(ids, owner, more).map(([id, o, m]) => create(id, { ...o, ...m })),
      fc.tuple(ids, owner, more).map(([id, o, m]) => update(id, { ...o, ...m })),
      ids.map((presetId): PresetCommand => ({ type: 'DeletePreset', data: { presetId, now, by: 'u1' } })),
    );
    fc.assert(
      fc.property(fc.array(command, { maxLength: 12 }), (cmds) => {
        const { state, events } = runCommands(presetsDecider, cmds);
        const keys = state.presets.map((p) => `${scopeOf(p)}|${p.userId}|${p.roleId}|${p.collection}|${p.bookmark}`);
        expect(new Set(keys).size).toBe(keys.length);
        expect(fold(presetsDecider, events)).toEqual(state);
      }),
    );
  });
});

describe('Ownership of a preset body', () => {
  it('makes a create that names no owner global (the spec: neither user nor role means global scope)', () =>
    expect(resolveOwner({}, null)).toEqual({ userId: null, roleId: null }));
  it('derives the scope from a named user or role; an explicit scope that agrees changes nothing', () => {
    expect(resolveOwner({ roleId: 'r' }, null)).toEqual({ userId: null, roleId: 'r' });
    expect(resolveOwner({ userId: 'u' }, null)).toEqual({ userId: 'u', roleId: null });
    expect(resolveOwner({ scope: 'user', userId: 'u' }, null)).toEqual({ userId: 'u', roleId: null });
    expect(resolveOwner({ scope: 'global' }, null)).toEqual({ userId: null, roleId: null });
  });
  it('keeps the owner of an update that names none, and clearing the owner makes it global', () => {
    const current = { userId: 'u', roleId: null, bookmark: 'kept elsewhere' };
    expect(resolveOwner({}, current)).toEqual({ userId: 'u', roleId: null });
    expect(resolveOwner({ scope: 'user' }, current)).toEqual({ userId: 'u', roleId: null });
    expect(resolveOwner({ userId: null }, { userId: 'u', roleId: null })).toEqual({ userId: null, roleId: null });
  });
  it('refuses contradictions with VALIDATION_FAILED', () => {
    for (const input of [
      { userId: 'u', roleId: 'r' },
      { scope: 'global' as const, userId: 'u' },
      { scope: 'user' as const, roleId: 'r' },
      { scope: 'user' as const },
      { scope: 'role' as const },
    ])
      expect(() => resolveOwner(input, null)).toThrow(expect.objectContaining({ code: 'VALIDATION_FAILED' }));
    expect(() => resolveOwner({ scope: 'user', userId: null }, { userId: 'u', roleId: null })).toThrow(
      expect.objectContaining({ code: 'VALIDATION_FAILED' }),
    );
  });
});
