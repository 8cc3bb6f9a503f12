import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { fold } from '../../kernel/es/decider.ts';
import { deciderSpec, runCommands } from '../../../test/support/decider-spec.ts';
import { fieldWithDefaults, type FieldDef } from '../../contracts/schema/schema.types.ts';
import { itemDecider, type ItemCommand } from './item.decider.ts';
import type { ItemEvent } from '../../contracts/items/item.events.ts';

const fields: FieldDef[] = [
  fieldWithDefaults({ field: 'title', type: 'string', required: true }),
  fieldWithDefaults({ field: 'views', type: 'integer', default: 0 }),
  fieldWithDefaults({ field: 'code', type: 'string', readonly: true }),
];
const ctx = { collection: 'articles', id: 'a1', fields, now: '2026-03-01T00:00:00.000Z', by: 'u1' };
const at = { at: ctx.now, by: 'u1' };
const created: ItemEvent = {
  type: 'ItemCreated',
  data: { collection: 'articles', id: 'a1', values: { title: 'T', views: 0 }, ...at },
};
const given = deciderSpec(itemDecider);

describe('Item', () => {
  it('creates with defaults filled in', () =>
    given([])
      .when({ type: 'CreateItem', data: { ...ctx, values: { title: 'T' } } })
      .then([created]));
  it('rejects a create without a required field', () =>
    given([])
      .when({ type: 'CreateItem', data: { ...ctx, values: { views: 1 } } })
      .thenThrows('VALIDATION_FAILED'));
  it('records only the values that changed', () =>
    given([created])
      .when({ type: 'UpdateItem', data: { ...ctx, changes: { title: 'T', views: 2 } } })
      .then([{ type: 'ItemUpdated', data: { collection: 'articles', id: 'a1', changes: { views: 2 }, ...at } }]));
  it('refuses to write a read-only field on update', () =>
    given([created])
      .when({ type: 'UpdateItem', data: { ...ctx, changes: { code: 'x' } } })
      .thenThrows('VALIDATION_FAILED'));
  it('answers RECORD_NOT_FOUND for a deleted item', () =>
    given([created, { type: 'ItemDeleted', data: { collection: 'articles', id: 'a1', ...at } }])
      .when({ type: 'UpdateItem', data: { ...ctx, changes: { views: 1 } } })
      .thenThrows('RECORD_NOT_FOUND'));
  it('rejects a second create with CONFLICT', () =>
    given([created])
      .when({ type: 'CreateItem', data: { ...ctx, values: { title: 'U' } } })
      .thenThrows('CONFLICT'));
  it('upserts a singleton: creates with defaults when absent, updates when live, re-creates after a delete', () => {
    given([])
      .when({ type: 'UpsertItem', data: { ...ctx, changes: { title: 'T' } } })
      .then([created]);
    given([created])
      .when({ type: 'UpsertItem', data: { ...ctx, changes: { views: 3 } } })
      .then([{ type: 'ItemUpdated', data: { collection: 'articles', id: 'a1', changes: { views: 3 }, ...at } }]);
    given([created, { type: 'ItemDeleted', data: { collection: 'articles', id: 'a1', ...at } }])
      .when({ type: 'UpsertItem', data: { ...ctx, changes: { title: 'T' } } })
      .then([created]);
    given([])
      .when({ type: 'UpsertItem', data: { ...ctx, changes: { views: 3 } } })
      .thenThrows('VALIDATION_FAILED');
  });

  it('reverts to a revision’s values, kept to the current fields, only on a live item', () => {
    given([created])
      .when({ type: 'RevertItem', data: { ...ctx, values: { title: 'Old', gone: 1 }, revisionId: 'r1' } })
      .then([
        {
          type: 'ItemReverted',
          data: { collection: 'articles', id: 'a1', values: { title: 'Old' }, revisionId: 'r1', ...at },
        },
      ]);
    given([created])
      .when({ type: 'RevertItem', data: { ...ctx, values: { views: 1 }, revisionId: 'r1' } })
      .thenThrows('VALIDATION_FAILED');
    given([])
      .when({ type: 'RevertItem', data: { ...ctx, values: {}, revisionId: 'r1' } })
      .thenThrows('RECORD_NOT_FOUND');
  });
  it('promotes a version onto main, and restores only a deleted item', () => {
    given([created])
      .when({ type: 'PromoteVersion', data: { ...ctx, key: 'draft', values: { title: 'D' }, diverged: true } })
      .then([
        {
          type: 'ItemVersionPromoted',
          data: { collection: 'articles', id: 'a1', key: 'draft', values: { title: 'D' }, diverged: true, ...at },
        },
      ]);
    given([created]).when({ type: 'RestoreItem', data: ctx }).thenThrows('RECORD_NOT_FOUND');
    given([created, { type: 'ItemDeleted', data: { collection: 'articles', id: 'a1', ...at } }])
      .when({ type: 'RestoreItem', data: ctx })
      .then([{ type: 'ItemRestored', data: { collection: 'articles', id: 'a1', ...at } }]);
  });

  const values = fc.record(
    {
      title: fc.oneof(fc.string(), fc.constant(null)),
      views: fc.oneof(fc.integer({ min: 0, max: 99 }), fc.constant('x')),
    },
    { requiredKeys: [] },
  );
  const commandArb: fc.Arbitrary<ItemCommand> = fc.oneof(
    values.map((v) => ({ type: 'CreateItem' as const, data: { ...ctx, values: v } })),
    values.map((v) => ({ type: 'UpdateItem' as const, data: { ...ctx, changes: v } })),
    values.map((v) => ({ type: 'ReplaceItem' as const, data: { ...ctx, values: v } })),
    values.map((v) => ({ type: 'UpsertItem' as const, data: { ...ctx, changes: v } })),
    values.map((v) => ({ type: 'RevertItem' as const, data: { ...ctx, values: v, revisionId: 'r' } })),
    fc.constant({ type: 'RestoreItem' as const, data: ctx }),
    fc.constant({ type: 'DeleteItem' as const, data: ctx }),
  );
  it('folding the accepted events gives the state reached step by step', () =>
    fc.assert(
      fc.property(fc.array(commandArb, { maxLength: 30 }), (cmds) => {
        const { state, events } = runCommands(itemDecider, cmds);
        expect(fold(itemDecider, events)).toEqual(state);
      }),
    ));
});
