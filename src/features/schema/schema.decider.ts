import { own } from '../../kernel/safe/keys.ts';
import { assertNever, type Decider } from '../../kernel/es/decider.ts';
import {
  CollectionExists,
  CollectionInUse,
  EnumNeedsChoices,
  FieldCarriesRelation,
  FieldExists,
  FieldNotFound,
  PersonalDataRule,
  RelationNotFound,
  SystemFieldName,
  TypeNotConvertible,
  WrongCarrierType,
} from './schema.errors.ts';
import {
  changeable,
  checkPersonalField,
  checkRelation,
  checkSearchable,
  checkSubject,
  checkWorkflow,
  usedBy,
} from './schema.checks.ts';
import type { PlanSummary, SchemaEvent } from '../../contracts/schema/schema.events.ts';
import { SYSTEM_COLLECTIONS } from '../../contracts/schema/system-collections.types.ts';
import {
  CARRIER_TYPES,
  convertible,
  SYSTEM_FIELDS,
  type CollectionChanges,
  type CollectionDef,
  type FieldChanges,
  type FieldDef,
  type FieldType,
  type RelationChanges,
  type RelationDef,
} from '../../contracts/schema/schema.types.ts';
import type { CollectionState, SchemaState } from '../../contracts/schema/schema.snapshot.ts';

type At = { now: string };
export type SchemaCommand =
  | { type: 'CreateCollection'; data: At & { collection: CollectionDef } }
  | { type: 'UpdateCollection'; data: At & { name: string; changes: CollectionChanges } }
  | { type: 'DeleteCollection'; data: At & { name: string } }
  | { type: 'CreateField'; data: At & { collection: string; field: FieldDef } }
  | { type: 'UpdateField'; data: At & { collection: string; field: string; changes: FieldChanges } }
  | { type: 'DeleteField'; data: At & { collection: string; field: string } }
  | {
      type: 'ChangeFieldType';
      data: At & { collection: string; field: string; to: FieldType; choices: string[] | null };
    }
  | { type: 'CreateRelation'; data: At & { relation: RelationDef } }
  | { type: 'UpdateRelation'; data: At & { id: string; changes: RelationChanges } }
  | { type: 'DeleteRelation'; data: At & { id: string } }
  | { type: 'ApplyPlan'; data: At & { steps: PlanStep[]; summary: PlanSummary } };

/** One change of a plan: any single schema command, at the plan's time. */
export type PlanStep =
  Exclude<SchemaCommand, { type: 'ApplyPlan' }> extends infer C
    ? C extends { type: infer T; data: infer D }
      ? { type: T; data: Omit<D, 'now'> }
      : never
    : never;

/** Every site's schema starts with the system collections (files), fixed and never deleted. */
function systemCollections(): Record<string, CollectionState> {
  const out: Record<string, CollectionState> = Object.create(null);
  for (const [name, c] of SYSTEM_COLLECTIONS) {
    const fields: Record<string, FieldDef> = Object.create(null);
    for (const f of c.fields) fields[f.field] = f;
    out[name] = { def: c.collection, deleted: false, fields };
  }
  return out;
}

/** The schema of one site: collections, their fields, and the relations between them. */
export const schemaDecider: Decider<SchemaState, SchemaCommand, SchemaEvent> = {
  initialState: () => ({ collections: systemCollections(), relations: {} }),
  evolve: (s, e) => evolveSchema(s, e),
  decide: (cmd, s) => decideSchema(cmd, s),
};

/**
 * A plan's steps, each decided against the state the earlier ones left (any refusal refuses the whole plan), their
 * events appended together and closed by one `SchemaChanged` carrying the plan's summary.
 */
function decidePlan(steps: PlanStep[], summary: PlanSummary, at: string, s: SchemaState): SchemaEvent[] {
  const out: SchemaEvent[] = [];
  let state = s;
  for (const step of steps) {
    for (const e of decideSchema({ type: step.type, data: { ...step.data, now: at } } as SchemaCommand, state)) {
      if (e.type === 'SchemaChanged') continue;
      out.push(e);
      state = evolveSchema(state, e);
    }
  }
  if (out.length === 0) return [];
  return [...out, { type: 'SchemaChanged', data: { change: 'plan.applied', collection: null, at, summary } }];
}

type Cmd<T extends SchemaCommand['type']> = Extract<SchemaCommand, { type: T }>;

/** The spec's schema.changed signal that follows every change (for caches and type generation). */
const changed = (change: string, collection: string | null, at: string): SchemaEvent => ({
  type: 'SchemaChanged',
  data: { change, collection, at },
});

function decideSchema(cmd: SchemaCommand, s: SchemaState): SchemaEvent[] {
  switch (cmd.type) {
    case 'CreateCollection':
      return createCollection(cmd, s);
    case 'UpdateCollection':
      return updateCollection(cmd, s);
    case 'DeleteCollection':
      return deleteCollection(cmd, s);
    case 'CreateField':
      return createField(cmd, s);
    case 'UpdateField':
      return updateField(cmd, s);
    case 'ChangeFieldType':
      return changeFieldType(cmd, s);
    case 'DeleteField':
      return deleteField(cmd, s);
    case 'CreateRelation':
      return createRelation(cmd, s);
    case 'UpdateRelation':
      return updateRelation(cmd, s);
    case 'DeleteRelation':
      return deleteRelation(cmd, s);
    case 'ApplyPlan':
      return decidePlan(cmd.data.steps, cmd.data.summary, cmd.data.now, s);
    default:
      return assertNever(cmd);
  }
}

function createCollection(cmd: Cmd<'CreateCollection'>, s: SchemaState): SchemaEvent[] {
  const { collection, now: at } = cmd.data;
  if (own(s.collections, collection.name)) throw new CollectionExists({ name: collection.name });
  checkWorkflow(collection.workflow, {});
  checkSubject(collection.subject, {});
  return [{ type: 'CollectionCreated', data: { collection, at } }, changed('collection.created', collection.name, at)];
}

function updateCollection(cmd: Cmd<'UpdateCollection'>, s: SchemaState): SchemaEvent[] {
  const { name, changes, now: at } = cmd.data;
  const c = changeable(s, name, 'name');
  checkWorkflow(changes.workflow, c.fields);
  if (changes.subject !== undefined) checkSubject(changes.subject, c.fields);
  return [{ type: 'CollectionUpdated', data: { name, changes, at } }, changed('collection.updated', name, at)];
}

/** Refused while a relation of another collection targets the collection or passes through it. */
function deleteCollection(cmd: Cmd<'DeleteCollection'>, s: SchemaState): SchemaEvent[] {
  const { name, now: at } = cmd.data;
  changeable(s, name, 'name');
  const refs = usedBy(s, name).filter((r) => r.collection !== name);
  if (refs.length) throw new CollectionInUse({ name, relations: refs.map((r) => r.id) });
  return [{ type: 'CollectionDeleted', data: { name, at } }, changed('collection.deleted', name, at)];
}

function createField(cmd: Cmd<'CreateField'>, s: SchemaState): SchemaEvent[] {
  const { collection, field, now: at } = cmd.data;
  const c = changeable(s, collection);
  const name = field.field;
  if ((SYSTEM_FIELDS as readonly string[]).includes(name)) throw new SystemFieldName({ field: name });
  if (own(c.fields, name)) throw new FieldExists({ collection, field: name });
  checkPersonalField(c, field);
  checkSearchable(field);
  return [{ type: 'FieldCreated', data: { collection, field, at } }, changed('field.created', collection, at)];
}

/** The changes are checked on the field as it will be (its type and whether it is personal are not among them). */
function updateField(cmd: Cmd<'UpdateField'>, s: SchemaState): SchemaEvent[] {
  const { collection, field, changes, now: at } = cmd.data;
  const c = changeable(s, collection);
  const f = own(c.fields, field);
  if (!f) throw new FieldNotFound({ collection, field, at: 'field' });
  if (f.type === 'enum' && changes.choices === null) throw new EnumNeedsChoices();
  checkPersonalField(c, { ...f, ...changes, personal: f.personal });
  checkSearchable({ ...f, ...changes, personal: f.personal });
  return [{ type: 'FieldUpdated', data: { collection, field, changes, at } }, changed('field.updated', collection, at)];
}

/**
 * A field's values converted to another type: never an encrypted or a personal field's, only between convertible
 * types, and only to a type every relation the field carries accepts. The same type changes nothing.
 */
function changeFieldType(cmd: Cmd<'ChangeFieldType'>, s: SchemaState): SchemaEvent[] {
  const { collection, field, to, choices, now: at } = cmd.data;
  const f = own(changeable(s, collection).fields, field);
  if (!f) throw new FieldNotFound({ collection, field, at: 'field' });
  if (f.type === to) return [];
  if (f.encrypted) throw new TypeNotConvertible({ field, from: f.type, to, why: 'an encrypted field keeps its type' });
  if (f.personal) throw new TypeNotConvertible({ field, from: f.type, to, why: 'a personal field keeps its type' });
  checkPersonalField(changeable(s, collection), { ...f, type: to });
  checkSearchable({ ...f, type: to });
  if (!convertible(f.type, to)) throw new TypeNotConvertible({ field, from: f.type, to });
  if (to === 'enum' && !choices?.length) throw new EnumNeedsChoices();
  for (const r of usedBy(s, collection, field)) {
    const carriers = own(CARRIER_TYPES, r.kind) ?? [];
    if (!carriers.includes(to)) throw new WrongCarrierType({ kind: r.kind, types: carriers });
  }
  const data = { collection, field, from: f.type, to, choices: to === 'enum' ? choices : null, unique: f.unique, at };
  return [{ type: 'FieldTypeChanged', data }, changed('field.type_changed', collection, at)];
}

/** A field stays while it is the collection's subject or carries a relation. */
function deleteField(cmd: Cmd<'DeleteField'>, s: SchemaState): SchemaEvent[] {
  const { collection, field, now: at } = cmd.data;
  const c = changeable(s, collection);
  if (!own(c.fields, field)) throw new FieldNotFound({ collection, field, at: 'field' });
  const subject = c.def.subject;
  if (subject?.from === 'field' && subject.field === field)
    throw new PersonalDataRule({ message: `${field} is the collection's subject`, at: 'field' });
  if (usedBy(s, collection, field).length) throw new FieldCarriesRelation({ field });
  return [{ type: 'FieldDeleted', data: { collection, field, at } }, changed('field.deleted', collection, at)];
}

function createRelation(cmd: Cmd<'CreateRelation'>, s: SchemaState): SchemaEvent[] {
  const { relation, now: at } = cmd.data;
  checkRelation(s, relation);
  return [{ type: 'RelationCreated', data: { relation, at } }, changed('relation.created', relation.collection, at)];
}

function updateRelation(cmd: Cmd<'UpdateRelation'>, s: SchemaState): SchemaEvent[] {
  const { id, changes, now: at } = cmd.data;
  const r = own(s.relations, id);
  if (!r) throw new RelationNotFound({ id });
  return [{ type: 'RelationUpdated', data: { id, changes, at } }, changed('relation.updated', r.collection, at)];
}

function deleteRelation(cmd: Cmd<'DeleteRelation'>, s: SchemaState): SchemaEvent[] {
  const { id, now: at } = cmd.data;
  const r = own(s.relations, id);
  if (!r) throw new RelationNotFound({ id });
  return [{ type: 'RelationDeleted', data: { id, at } }, changed('relation.deleted', r.collection, at)];
}

function evolveSchema(s: SchemaState, e: SchemaEvent): SchemaState {
  const withCollection = (name: string, f: (c: CollectionState) => CollectionState): SchemaState => {
    const c = own(s.collections, name);
    return c ? { ...s, collections: { ...s.collections, [name]: f(c) } } : s;
  };
  switch (e.type) {
    case 'CollectionCreated':
      return {
        ...s,
        collections: {
          ...s.collections,
          [e.data.collection.name]: { def: e.data.collection, deleted: false, fields: {} },
        },
      };
    case 'CollectionUpdated':
      return withCollection(e.data.name, (c) => ({ ...c, def: { ...c.def, ...e.data.changes } }));
    case 'CollectionDeleted':
      return withCollection(e.data.name, (c) => ({ ...c, deleted: true }));
    case 'FieldCreated':
      return withCollection(e.data.collection, (c) => ({
        ...c,
        fields: { ...c.fields, [e.data.field.field]: e.data.field },
      }));
    case 'FieldUpdated':
      return withCollection(e.data.collection, (c) => {
        const f = own(c.fields, e.data.field);
        return f ? { ...c, fields: { ...c.fields, [e.data.field]: { ...f, ...e.data.changes } } } : c;
      });
    case 'FieldTypeChanged':
      return withCollection(e.data.collection, (c) => {
        const f = own(c.fields, e.data.field);
        return f
          ? { ...c, fields: { ...c.fields, [e.data.field]: { ...f, type: e.data.to, choices: e.data.choices } } }
          : c;
      });
    case 'FieldDeleted':
      return withCollection(e.data.collection, (c) => {
        const fields = { ...c.fields };
        delete fields[e.data.field];
        return { ...c, fields };
      });
    case 'RelationCreated':
      return { ...s, relations: { ...s.relations, [e.data.relation.id]: e.data.relation } };
    case 'RelationUpdated': {
      const r = own(s.relations, e.data.id);
      return r ? { ...s, relations: { ...s.relations, [e.data.id]: { ...r, ...e.data.changes } } } : s;
    }
    case 'RelationDeleted': {
      const relations = { ...s.relations };
      delete relations[e.data.id];
      return { ...s, relations };
    }
    case 'SchemaChanged':
      return s;
    default:
      return assertNever(e);
  }
}
