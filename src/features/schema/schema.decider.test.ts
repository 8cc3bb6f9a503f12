import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { fold } from '../../kernel/es/decider.ts';
import { deciderSpec, runCommands } from '../../../test/support/decider-spec.ts';
import { schemaDecider, type SchemaCommand } from './schema.decider.ts';
import type { SchemaEvent } from '../../contracts/schema/schema.events.ts';
import { fieldWithDefaults, type CollectionDef, type FieldDef } from '../../contracts/schema/schema.types.ts';

const now = '2026-03-01T10:00:00.000Z';
const given = deciderSpec(schemaDecider);
const collection = (name: string): CollectionDef => ({
  name,
  displayName: null,
  icon: null,
  note: null,
  singleton: false,
  status_field: null,
  sort_field: null,
  primaryKeyType: 'nanoid',
});
const field = (name: string, type: FieldDef['type'] = 'string'): FieldDef => fieldWithDefaults({ field: name, type });
const created = (name: string): SchemaEvent => ({
  type: 'CollectionCreated',
  data: { collection: collection(name), at: now },
});
const fieldCreated = (c: string, f: string): SchemaEvent => ({
  type: 'FieldCreated',
  data: { collection: c, field: field(f), at: now },
});
const rel = {
  id: 'r1',
  kind: 'm2o' as const,
  collection: 'articles',
  field: 'author',
  target: 'authors',
  junctionCollection: null,
  targetField: null,
  junctionField: null,
  onDelete: 'set null' as const,
};

describe('Schema', () => {
  it('creates a collection and signals schema.changed', () =>
    given([])
      .when({ type: 'CreateCollection', data: { collection: collection('articles'), now } })
      .then([
        created('articles'),
        { type: 'SchemaChanged', data: { change: 'collection.created', collection: 'articles', at: now } },
      ]));

  it('rejects a taken collection name with CONFLICT, even a soft-deleted one', () =>
    given([created('articles'), { type: 'CollectionDeleted', data: { name: 'articles', at: now } }])
      .when({ type: 'CreateCollection', data: { collection: collection('articles'), now } })
      .thenThrows('CONFLICT'));

  it('rejects a field named like a system field', () =>
    given([created('articles')])
      .when({ type: 'CreateField', data: { collection: 'articles', field: field('status'), now } })
      .thenThrows('VALIDATION_FAILED'));

  it('rejects a field on a missing collection with NOT_FOUND', () =>
    given([])
      .when({ type: 'CreateField', data: { collection: 'nope', field: field('title'), now } })
      .thenThrows('NOT_FOUND'));

  it('rejects a relation to a collection that does not exist', () =>
    given([created('articles'), fieldCreated('articles', 'author')])
      .when({ type: 'CreateRelation', data: { relation: rel, now } })
      .thenThrows('VALIDATION_FAILED'));

  it('keeps a collection that other relations target', () =>
    given([
      created('articles'),
      created('authors'),
      fieldCreated('articles', 'author'),
      { type: 'RelationCreated', data: { relation: rel, at: now } },
    ])
      .when({ type: 'DeleteCollection', data: { name: 'authors', now } })
      .thenThrows('CONFLICT'));

  const names = fc.constantFrom('a', 'b', 'c');
  const commandArb: fc.Arbitrary<SchemaCommand> = fc.oneof(
    names.map((n) => ({ type: 'CreateCollection' as const, data: { collection: collection(n), now } })),
    names.map((n) => ({ type: 'DeleteCollection' as const, data: { name: n, now } })),
    fc
      .tuple(names, fc.constantFrom('x', 'y'))
      .map(([c, f]) => ({ type: 'CreateField' as const, data: { collection: c, field: field(f), now } })),
    fc
      .tuple(names, fc.constantFrom('x', 'y'))
      .map(([c, f]) => ({ type: 'DeleteField' as const, data: { collection: c, field: f, now } })),
    fc.tuple(names, names).map(([c, t]) => ({
      type: 'CreateRelation' as const,
      data: { relation: { ...rel, id: `${c}-${t}`, collection: c, field: 'x', target: t }, now },
    })),
  );

  it('folding the accepted events gives the state reached step by step', () =>
    fc.assert(
      fc.property(fc.array(commandArb, { maxLength: 40 }), (cmds) => {
        const { state, events } = runCommands(schemaDecider, cmds);
        expect(fold(schemaDecider, events)).toEqual(state);
      }),
    ));
});
