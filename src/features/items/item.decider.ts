import { own } from '../../kernel/safe/keys.ts';
import { assertNever, type Decider } from '../../kernel/es/decider.ts';
import type { ErrorObject } from '../../kernel/http/errors.ts';
import { EditorialGateRequired, InvalidValues, ItemExists, ItemNotFound } from './item.errors.ts';
import type { FieldDef, Workflow } from '../../contracts/schema/schema.types.ts';
import type { ItemEvent, ItemValues } from '../../contracts/items/item.events.ts';
import { valueProblems, withDefaults } from './item.values.ts';

/** When and by whom an item was created and last changed, as its read model shows them. */
export interface ItemStamp {
  created_at: string;
  created_by: string;
  updated_at: string;
  updated_by: string;
}

export type ItemState = { status: 'absent' } | { status: 'live' | 'deleted'; values: ItemValues; stamp?: ItemStamp };

/** The stamp after a change by `d` (a rewrap or a delete is no change of the values, and keeps it). */
const touched = (s: ItemState, d: { at: string; by: string }): ItemStamp | undefined =>
  s.status === 'absent' || !s.stamp ? undefined : { ...s.stamp, updated_at: d.at, updated_by: d.by };

/** The collection's fields, the time and the actor travel with every command: the decider reads nothing. */
type Ctx = { collection: string; id: string; fields: FieldDef[]; now: string; by: string; workflow?: Workflow | null };
export type ItemCommand =
  | { type: 'CreateItem'; data: Ctx & { values: ItemValues } }
  | { type: 'UpdateItem'; data: Ctx & { changes: ItemValues } }
  | { type: 'ReplaceItem'; data: Ctx & { values: ItemValues } }
  | { type: 'DeleteItem'; data: Ctx }
  /** Hard delete: live or soft-deleted, the item leaves the read models. */
  | { type: 'PurgeItem'; data: Ctx }
  /** New envelopes for encrypted values (key rotation); live or soft-deleted items alike. */
  | { type: 'RewrapItem'; data: Ctx & { changes: ItemValues } }
  /** Back to a revision's values (kept to the collection's current fields). */
  | { type: 'RevertItem'; data: Ctx & { values: ItemValues; revisionId: string } }
  /** A named version's values become main's. */
  | { type: 'PromoteVersion'; data: Ctx & { key: string; values: ItemValues; diverged: boolean } }
  /** A soft-deleted item comes back. */
  | { type: 'RestoreItem'; data: Ctx }
  /** A singleton's one record: created with these values when absent, else updated with them. */
  | { type: 'UpsertItem'; data: Ctx & { changes: ItemValues } };

function check(problems: ErrorObject[]): void {
  if (problems.length) throw new InvalidValues(problems);
}

function liveValues(s: ItemState, c: Ctx): ItemValues {
  if (s.status !== 'live') throw new ItemNotFound(c);
  return s.values;
}

/**
 * The editorial gate (DESIGN §5): when the command changes the workflow's field, the new value must be one the
 * workflow allows after the current one (or, for a new item, one of its initial values). 409 EDITORIAL_GATE_REQUIRED.
 */
function gate(c: Ctx, before: ItemState, after: ItemState): void {
  const w = c.workflow;
  if (!w || after.status !== 'live') return;
  const from = before.status === 'absent' ? null : (before.values[w.field] ?? null);
  const to = after.values[w.field] ?? null;
  if (JSON.stringify(from) === JSON.stringify(to) && before.status !== 'absent') return;
  const allowed =
    from === null && before.status === 'absent' ? (w.initial ?? null) : (w.transitions[String(from)] ?? []);
  if (allowed === null || allowed.includes(String(to))) return;
  throw new EditorialGateRequired({ collection: c.collection, field: w.field, from, to, allowed });
}

/**
 * A new item that names no value for its workflow's field starts in the workflow's first initial state, unless the
 * field's own default (already filled in) is one of them: without this a create had to repeat what the workflow says.
 */
function startingState(c: Ctx, values: ItemValues): ItemValues {
  const w = c.workflow;
  const first = w?.initial?.[0];
  if (!w || first === undefined || (own(values, w.field) ?? null) !== null) return values;
  return { ...values, [w.field]: first };
}

/** One item: values validated against its collection's fields, changes recorded as deltas, its workflow kept. */
export const itemDecider: Decider<ItemState, ItemCommand, ItemEvent> = {
  initialState: () => ({ status: 'absent' }),
  evolve: (s, e) => {
    switch (e.type) {
      case 'ItemCreated': {
        const { at, by } = e.data;
        return {
          status: 'live',
          values: e.data.values,
          stamp: { created_at: at, created_by: by, updated_at: at, updated_by: by },
        };
      }
      case 'ItemReplaced':
        return { status: 'live', values: e.data.values, stamp: touched(s, e.data) };
      case 'ItemReverted':
      case 'ItemVersionPromoted':
        return s.status === 'absent' ? s : { ...s, values: e.data.values, stamp: touched(s, e.data) };
      case 'ItemRestored':
        return s.status === 'absent' ? s : { status: 'live', values: s.values, stamp: touched(s, e.data) };
      case 'ItemUpdated':
        return s.status === 'absent'
          ? s
          : { ...s, values: { ...s.values, ...e.data.changes }, stamp: touched(s, e.data) };
      case 'ItemRewrapped':
        return s.status === 'absent' ? s : { ...s, values: { ...s.values, ...e.data.changes } };
      case 'ItemDeleted':
      case 'ItemPurged':
        return s.status === 'absent' ? s : { status: 'deleted', values: s.values, stamp: s.stamp };
      default:
        return assertNever(e);
    }
  },
  decide: (cmd, s) => {
    const events = decideItem(cmd, s);
    if (cmd.data.workflow && events.length) gate(cmd.data, s, events.reduce(itemDecider.evolve, s));
    return events;
  },
};

function decideItem(cmd: ItemCommand, s: ItemState): ItemEvent[] {
  const { collection, id, fields, now: at, by } = cmd.data;
  switch (cmd.type) {
    case 'CreateItem': {
      if (s.status !== 'absent') throw new ItemExists({ collection, id });
      const values = startingState(cmd.data, withDefaults(fields, cmd.data.values));
      check(valueProblems(fields, values, 'full'));
      return [{ type: 'ItemCreated', data: { collection, id, values, at, by } }];
    }
    case 'UpdateItem': {
      const current = liveValues(s, cmd.data);
      check(valueProblems(fields, cmd.data.changes, 'partial'));
      const changes = Object.fromEntries(
        Object.entries(cmd.data.changes).filter(([k, v]) => JSON.stringify(own(current, k)) !== JSON.stringify(v)),
      );
      return Object.keys(changes).length ? [{ type: 'ItemUpdated', data: { collection, id, changes, at, by } }] : [];
    }
    case 'ReplaceItem': {
      liveValues(s, cmd.data);
      check(valueProblems(fields, cmd.data.values, 'full'));
      return [{ type: 'ItemReplaced', data: { collection, id, values: cmd.data.values, at, by } }];
    }
    case 'UpsertItem':
      return s.status === 'live'
        ? decideItem({ type: 'UpdateItem', data: cmd.data }, s)
        : decideItem({ type: 'CreateItem', data: { ...cmd.data, values: cmd.data.changes } }, { status: 'absent' });
    case 'RevertItem': {
      liveValues(s, cmd.data);
      const keep = new Set([...fields.map((f) => f.field), 'status', 'sort']);
      const values = Object.fromEntries(Object.entries(cmd.data.values).filter(([k]) => keep.has(k)));
      check(valueProblems(fields, values, 'full'));
      return [{ type: 'ItemReverted', data: { collection, id, values, revisionId: cmd.data.revisionId, at, by } }];
    }
    case 'PromoteVersion': {
      liveValues(s, cmd.data);
      const keep = new Set([...fields.map((f) => f.field), 'status', 'sort']);
      const values = Object.fromEntries(Object.entries(cmd.data.values).filter(([k]) => keep.has(k)));
      check(valueProblems(fields, values, 'full'));
      const { key, diverged } = cmd.data;
      return [{ type: 'ItemVersionPromoted', data: { collection, id, key, values, diverged, at, by } }];
    }
    case 'RestoreItem':
      if (s.status !== 'deleted') throw new ItemNotFound(cmd.data);
      return [{ type: 'ItemRestored', data: { collection, id, at, by } }];
    case 'RewrapItem':
      if (s.status === 'absent') throw new ItemNotFound(cmd.data);
      return Object.keys(cmd.data.changes).length
        ? [{ type: 'ItemRewrapped', data: { collection, id, changes: cmd.data.changes, at, by } }]
        : [];
    case 'PurgeItem':
      if (s.status === 'absent') throw new ItemNotFound(cmd.data);
      return [{ type: 'ItemPurged', data: { collection, id, at, by } }];
    case 'DeleteItem':
      liveValues(s, cmd.data);
      return [{ type: 'ItemDeleted', data: { collection, id, at, by } }];
    default:
      return assertNever(cmd);
  }
}
