import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { fold } from '../../kernel/es/decider.ts';
import { deciderSpec, runCommands } from '../../../test/support/decider-spec.ts';
import { folderDecider, type FolderCommand } from './folder.decider.ts';
import type { FolderEvent } from '../../contracts/files/folder.events.ts';

const given = deciderSpec(folderDecider);
const t1 = '2026-03-01T10:00:00.000Z';
const t2 = '2026-03-02T10:00:00.000Z';
const create = (id: string, name: string, parent: string | null = null): FolderCommand => ({
  type: 'CreateFolder',
  data: { id, name, parent, by: 'u1', now: t1 },
});
const created = (id: string, name: string, parent: string | null = null): FolderEvent => ({
  type: 'FolderCreated',
  data: { id, name, parent, by: 'u1', at: t1 },
});
const change = (id: string, over: { name?: string; parent?: string | null }): FolderCommand => ({
  type: 'ChangeFolder',
  data: { id, ...over, by: 'u2', now: t2 },
});
const changed = (id: string, over: { name?: string; parent?: string | null }): FolderEvent => ({
  type: 'FolderChanged',
  data: { id, ...over, by: 'u2', at: t2 },
});
const del = (id: string): FolderCommand => ({ type: 'DeleteFolder', data: { id, by: 'u2', now: t2 } });
const deleted = (id: string): FolderEvent => ({ type: 'FolderDeleted', data: { id, by: 'u2', at: t2 } });

/** photos/2026 and docs, at the top. */
const tree = [created('photos', 'Photos'), created('y2026', '2026', 'photos'), created('docs', 'Docs')];

describe('Folders', () => {
  describe('CreateFolder', () => {
    it('creates a folder at the top', () =>
      given([])
        .when(create('photos', 'Photos'))
        .then([created('photos', 'Photos')]));
    it('creates a folder under a parent', () =>
      given(tree)
        .when(create('y2025', '2025', 'photos'))
        .then([created('y2025', '2025', 'photos')]));
    it('rejects an unknown parent with VALIDATION_FAILED', () =>
      given(tree)
        .when(create('x', 'X', 'nowhere'))
        .thenThrows('VALIDATION_FAILED'));
    it('rejects a name taken under the same parent with CONFLICT', () =>
      given(tree)
        .when(create('x', '2026', 'photos'))
        .thenThrows('CONFLICT'));
    it('rejects a name taken at the top with CONFLICT', () =>
      given(tree).when(create('x', 'Docs')).thenThrows('CONFLICT'));
    it('allows a name taken under another parent', () =>
      given(tree)
        .when(create('x', '2026', 'docs'))
        .then([created('x', '2026', 'docs')]));
    it('treats names as case sensitive', () =>
      given(tree)
        .when(create('x', 'docs'))
        .then([created('x', 'docs')]));
  });

  describe('ChangeFolder', () => {
    it('renames a folder', () =>
      given(tree)
        .when(change('docs', { name: 'Papers' }))
        .then([changed('docs', { name: 'Papers' })]));
    it('moves a folder under another', () =>
      given(tree)
        .when(change('docs', { parent: 'y2026' }))
        .then([changed('docs', { parent: 'y2026' })]));
    it('moves a folder to the top', () =>
      given(tree)
        .when(change('y2026', { parent: null }))
        .then([changed('y2026', { parent: null })]));
    it('records a change that keeps the name and the parent', () =>
      given(tree)
        .when(change('docs', { name: 'Docs' }))
        .then([changed('docs', { name: 'Docs' })]));
    it('rejects an unknown folder with NOT_FOUND', () =>
      given(tree)
        .when(change('nowhere', { name: 'X' }))
        .thenThrows('NOT_FOUND'));
    it('rejects an unknown parent with VALIDATION_FAILED', () =>
      given(tree)
        .when(change('docs', { parent: 'nowhere' }))
        .thenThrows('VALIDATION_FAILED'));
    it('rejects a move under itself with VALIDATION_FAILED', () =>
      given(tree)
        .when(change('photos', { parent: 'photos' }))
        .thenThrows('VALIDATION_FAILED'));
    it('rejects a move under its own child with VALIDATION_FAILED', () =>
      given(tree)
        .when(change('photos', { parent: 'y2026' }))
        .thenThrows('VALIDATION_FAILED'));
    it('rejects a rename to a sibling name with CONFLICT', () =>
      given(tree)
        .when(change('docs', { name: 'Photos' }))
        .thenThrows('CONFLICT'));
    it('rejects a move next to a folder of the same name with CONFLICT', () =>
      given([...tree, created('d2', '2026', 'docs')])
        .when(change('d2', { parent: 'photos' }))
        .thenThrows('CONFLICT'));
  });

  describe('DeleteFolder', () => {
    it('deletes an empty folder', () =>
      given(tree)
        .when(del('docs'))
        .then([deleted('docs')]));
    it('rejects an unknown folder with NOT_FOUND', () => given(tree).when(del('nowhere')).thenThrows('NOT_FOUND'));
    it('rejects a deleted folder with NOT_FOUND', () =>
      given([...tree, deleted('docs')])
        .when(del('docs'))
        .thenThrows('NOT_FOUND'));
    it('rejects a folder holding folders with CONFLICT', () => given(tree).when(del('photos')).thenThrows('CONFLICT'));
    it('deletes a folder once its children moved out', () =>
      given([...tree, changed('y2026', { parent: null })])
        .when(del('photos'))
        .then([deleted('photos')]));
  });

  describe('evolve', () => {
    it('stamps creation and the last change', () =>
      expect(fold(folderDecider, [...tree, changed('docs', { name: 'Papers', parent: 'photos' })]).get('docs')).toEqual(
        {
          id: 'docs',
          name: 'Papers',
          parent: 'photos',
          createdAt: t1,
          createdBy: 'u1',
          updatedAt: t2,
          updatedBy: 'u2',
        },
      ));
    it('frees a deleted folder’s name', () =>
      given([...tree, deleted('docs')])
        .when(create('d2', 'Docs'))
        .then([created('d2', 'Docs')]));
  });

  // Ids are new on create (the command mints them); changes and deletes aim at the first few of them.
  const idArb = fc.constantFrom('f0', 'f1', 'f2', 'f3');
  const parentArb = fc.constantFrom<string | null>(null, 'f0', 'f1', 'f2', 'f3');
  const nameArb = fc.constantFrom('x', 'y');
  const stepArb = fc.oneof(
    fc.tuple(nameArb, parentArb).map(
      ([name, parent]) =>
        (i: number) =>
          create(`f${i}`, name, parent),
    ),
    fc.record({ id: idArb, name: nameArb, parent: parentArb }, { requiredKeys: ['id'] }).map(
      ({ id, ...over }) =>
        () =>
          change(id, over),
    ),
    idArb.map((id) => () => del(id)),
  );
  const commandsArb = fc.array(stepArb, { maxLength: 30 }).map((steps) => steps.map((step, i) => step(i)));

  it('folding the accepted events gives the state reached step by step', () =>
    fc.assert(
      fc.property(commandsArb, (commands) => {
        const { state, events } = runCommands(folderDecider, commands);
        expect(fold(folderDecider, events)).toEqual(state);
      }),
    ));

  it('keeps a tree: parents exist, no cycles, names unique under a parent', () =>
    fc.assert(
      fc.property(commandsArb, (commands) => {
        const { state } = runCommands(folderDecider, commands);
        const names = new Set<string>();
        for (const f of state.values()) {
          if (f.parent !== null) expect(state.has(f.parent)).toBe(true);
          const seen = new Set<string>();
          for (let at: string | null = f.id; at !== null; at = state.get(at)?.parent ?? null) {
            expect(seen.has(at)).toBe(false);
            seen.add(at);
          }
          const key = `${f.parent}/${f.name}`;
          expect(names.has(key)).toBe(false);
          names.add(key);
        }
      }),
    ));
});
