import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { deciderSpec, runCommands } from '../../../test/support/decider-spec.ts';
import { isValidAdminPath, RESERVED_PATHS } from './admin-path.rules.ts';
import { studioDecider, type ChangeAdminPath } from './studio.decider.ts';
import type { StudioEvent } from '../../contracts/studio/studio.events.ts';

const given = deciderSpec(studioDecider);
const NOW = '2026-01-01T00:00:00.000Z';
const change = (to: string, setupPath: string | null = '/first-studio'): ChangeAdminPath => ({
  type: 'ChangeAdminPath',
  data: { setupPath, to, now: NOW },
});
const changed = (from: string, to: string): StudioEvent => ({ type: 'AdminPathChanged', data: { from, to, at: NOW } });

describe('Admin path', () => {
  it('moves from the path setup chose', () =>
    given([])
      .when(change('/second'))
      .then([changed('/first-studio', '/second')]));
  it('moves from the last change, whatever setup chose', () =>
    given([changed('/first-studio', '/second')])
      .when(change('/third'))
      .then([changed('/second', '/third')]));
  it('records nothing when asked for the path in force', () =>
    given([changed('/first-studio', '/second')])
      .when(change('/second'))
      .then([]));
  it('refuses before setup with NOT_FOUND', () => given([]).when(change('/second', null)).thenThrows('NOT_FOUND'));
  it('refuses every reserved path with VALIDATION_FAILED', () => {
    for (const p of RESERVED_PATHS) given([]).when(change(p)).thenThrows('VALIDATION_FAILED');
  });
  it('refuses paths outside the pattern: traversal, double slashes, encodings, case, length', () => {
    for (const p of ['/a/../b', '//x-y', '/x%2dy', '/Upper', '/ab', `/${'a'.repeat(64)}`, 'studio', '/x y', '/x/'])
      given([]).when(change(p)).thenThrows('VALIDATION_FAILED');
  });
  it('accepts exactly the valid paths, and evolve follows every event decide emits', () =>
    fc.assert(
      fc.property(fc.array(fc.stringMatching(/^\/[a-z0-9/%._-]{0,70}$/), { maxLength: 8 }), (paths) => {
        const { state, events } = runCommands(
          studioDecider,
          paths.map((p) => change(p)),
        );
        for (const e of events) expect(isValidAdminPath(e.data.to)).toBe(true);
        expect(state.path).toBe(events.at(-1)?.data.to ?? null);
      }),
    ));
});
