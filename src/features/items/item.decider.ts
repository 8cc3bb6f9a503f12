import { assertNever, type Decider } from '../../kernel/es/decider.ts';
import { DomainError, type ErrorObject } from '../../kernel/http/errors.ts';
import type { FieldDef } from '../schema/schema.types.ts';
import type { ItemEvent, ItemValues } from './item.events.ts';
import { valueProblems, withDefaults } from './item.values.ts';

export type ItemState = { status: 'absent' } | { status: 'live' | 'deleted'; values: ItemValues };

/** The collection's fields, the time and the actor travel with every command: the decider reads nothing. */
type Ctx = { collection: string; id: string; fields: FieldDef[]; now: string; by: string };
export type ItemCommand =
  | { type: 'CreateItem'; data: Ctx & { values: ItemValues } }
  | { type: 'UpdateItem'; data: Ctx & { changes: ItemValues } }
  | { type: 'ReplaceItem'; data: Ctx & { values: ItemValues } }
  | { type: 'DeleteItem'; data: Ctx };

const notFound = (c: Ctx) => new DomainError('RECORD_NOT_FOUND', `item ${c.id} of ${c.collection} not found`);

function check(problems: ErrorObject[]): void {
  if (problems.length) {
    throw new DomainError('VALIDATION_FAILED', problems.map((p) => p.message).join('; '), { errors: problems });
  }
}

function liveValues(s: ItemState, c: Ctx): ItemValues {
  if (s.status !== 'live') throw notFound(c);
  return s.values;
}

/** One item: values validated against its collection's fields, changes recorded as deltas. */
export const itemDecider: Decider<ItemState, ItemCommand, ItemEvent> = {
  initialState: () => ({ status: 'absent' }),
  evolve: (s, e) => {
    switch (e.type) {
      case 'ItemCreated':
      case 'ItemReplaced':
        return { status: 'live', values: e.data.values };
      case 'ItemUpdated':
        return s.status === 'absent' ? s : { ...s, values: { ...s.values, ...e.data.changes } };
      case 'ItemDeleted':
        return s.status === 'absent' ? s : { status: 'deleted', values: s.values };
      default:
        return assertNever(e);
    }
  },
  decide: (cmd, s) => {
    const { collection, id, fields, now: at, by } = cmd.data;
    switch (cmd.type) {
      case 'CreateItem': {
        if (s.status !== 'absent')
          throw new DomainError('CONFLICT', `item ${id} already exists in ${collection}`, { path: ['id'] });
        const values = withDefaults(fields, cmd.data.values);
        check(valueProblems(fields, values, 'full'));
        return [{ type: 'ItemCreated', data: { collection, id, values, at, by } }];
      }
      case 'UpdateItem': {
        const current = liveValues(s, cmd.data);
        check(valueProblems(fields, cmd.data.changes, 'partial'));
        const changes = Object.fromEntries(
          Object.entries(cmd.data.changes).filter(([k, v]) => JSON.stringify(current[k]) !== JSON.stringify(v)),
        );
        return Object.keys(changes).length ? [{ type: 'ItemUpdated', data: { collection, id, changes, at, by } }] : [];
      }
      case 'ReplaceItem': {
        liveValues(s, cmd.data);
        check(valueProblems(fields, cmd.data.values, 'full'));
        return [{ type: 'ItemReplaced', data: { collection, id, values: cmd.data.values, at, by } }];
      }
      case 'DeleteItem':
        liveValues(s, cmd.data);
        return [{ type: 'ItemDeleted', data: { collection, id, at, by } }];
      default:
        return assertNever(cmd);
    }
  },
};
