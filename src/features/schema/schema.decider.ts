import { own } from '../../kernel/safe/keys.ts';
import { assertNever, type Decider } from '../../kernel/es/decider.ts';
import {
  CollectionExists,
  CollectionInUse,
  CollectionNotFound,
  EnumNeedsChoices,
  FieldCarriesRelation,
  FieldExists,
  FieldNotFound,
  PersonalDataRule,
  RelationKeyRequired,
  RelationNotFound,
  RelationOnFieldExists,
  SearchableRule,
  SystemCollectionFixed,
  SystemFieldName,
  TypeNotConvertible,
  UnknownCollection,
  UnknownRelationField,
  UnknownWorkflowField,
  WrongCarrierType,
} from './schema.errors.ts';
import type { PlanSummary, SchemaEvent } from '../../contracts/schema/schema.events.ts';
import { isSystemCollection, SYSTEM_COLLECTIONS } from '../../contracts/schema/system-collections.types.ts';
import {
  CARRIER_TYPES,
  convertible,
  searchableRefusal,
  SYSTEM_FIELDS,
  type CollectionChanges,
  type CollectionDef,
  type FieldChanges,
  type FieldDef,
  type FieldType,
  type RelationChanges,
  type RelationDef,
  type SubjectDef,
  type Workflow,
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

/** A workflow gates `status` or one of the collection's fields (a new collection has only `status`). */
function checkWorkflow(workflow: Workflow | null | undefined, fields: Record<string, FieldDef>): void {
  if (!workflow) return;
  if (workflow.field !== 'status' && !own(fields, workflow.field))
    throw new UnknownWorkflowField({ field: workflow.field });
}

function live(s: SchemaState, name: string, at = 'collection'): CollectionState {
  const c = own(s.collections, name);
  if (!c || c.deleted) throw new CollectionNotFound({ name, at });
  return c;
}

/** A collection whose definition and fields a request may change: a live one that is not a system collection. */
function changeable(s: SchemaState, name: string, at = 'collection'): CollectionState {
  const c = live(s, name, at);
  if (isSystemCollection(name)) throw new SystemCollectionFixed({ name, at });
  return c;
}

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

function usedBy(s: SchemaState, collection: string, field?: string): RelationDef[] {
  return Object.values(s.relations).filter((r) =>
    field
      ? r.collection === collection && r.field === field
      : r.target === collection || r.junctionCollection === collection || r.collection === collection,
  );
}

/** The types whose values can name a user (a subject field). */
const SUBJECT_FIELD_TYPES: readonly FieldType[] = ['string', 'uuid'];

/**
 * A collection's subject: the item itself, or a field that names a user (`user_created`, or a string or uuid field
 * of the collection that is neither personal nor encrypted); removed only while no field is personal.
 */
function checkSubject(subject: SubjectDef | null | undefined, fields: Record<string, FieldDef>): void {
  if (!subject) {
    const personal = Object.values(fields).find((f) => f.personal);
    if (personal)
      throw new PersonalDataRule({
        message: `${personal.field} is personal: the collection needs a subject`,
        at: 'subject',
      });
    return;
  }
  if (subject.from === 'item' || subject.field === 'user_created') return;
  const f = own(fields, subject.field);
  if (!f) throw new PersonalDataRule({ message: `subject field ${subject.field} does not exist`, at: 'subject' });
  if (!SUBJECT_FIELD_TYPES.includes(f.type) || f.personal || f.encrypted)
    throw new PersonalDataRule({
      message: `subject field ${subject.field} must be a string or uuid field, neither personal nor encrypted`,
      at: 'subject',
    });
}

/** A field as it will be: a personal one needs the collection's subject and can be neither unique nor defaulted. */
function checkPersonalField(c: CollectionState, f: FieldDef): void {
  if (f.personal) {
    if (!c.def.subject)
      throw new PersonalDataRule({ message: `a personal field needs the collection's subject`, at: 'personal' });
    if (f.unique) throw new PersonalDataRule({ message: 'a personal field cannot be unique', at: 'unique' });
    if (f.default !== null && f.default !== undefined)
      throw new PersonalDataRule({ message: 'a personal field has no default', at: 'default' });
  } else if (f.erasedValue !== undefined && f.erasedValue !== null) {
    throw new PersonalDataRule({ message: 'only a personal field has an erasedValue', at: 'erasedValue' });
  }
  const subject = c.def.subject;
  if (subject?.from === 'field' && subject.field === f.field) checkSubject(subject, { ...c.fields, [f.field]: f });
}

/** A field as it will be: `searchable: true` only where search may index it (never sealed values). */
function checkSearchable(f: FieldDef): void {
  const refusal = f.searchable === true ? searchableRefusal(f) : null;
  if (refusal) throw new SearchableRule({ message: refusal });
}

/** A reference inside a request body to something that does not exist is bad input (400), not a missing resource. */
function ref(s: SchemaState, name: string | null, at: string): CollectionState {
  if (!name) throw new RelationKeyRequired({ at });
  const c = own(s.collections, name);
  if (!c || c.deleted) throw new UnknownCollection({ name, at });
  return c;
}

/** The value type a relation's carrying field must have: an id for m2o, a list of `{ collection, item }` for m2a. */

function needField(c: CollectionState, collection: string, field: string | null, at: string): void {
  if (!field) throw new RelationKeyRequired({ at, byKind: true });
  if (!own(c.fields, field)) throw new UnknownRelationField({ collection, field, at });
}

/**
 * Where each kind keeps its references (DESIGN decisions): m2o holds the target id in `field`; o2m reads the
 * target items whose `targetField` holds this id; m2m goes through junction items holding `junctionField` (this id)
 * and `targetField` (the target id); m2a holds `[{ collection, item }]` in `field`.
 */
function checkRelation(s: SchemaState, r: RelationDef): void {
  const c = ref(s, r.collection, 'collection');
  // A system collection may be the target of an m2o (a file reference), never carry a relation or hold a reverse
  // side (its fields are fixed, and only its slice writes its items).
  if (isSystemCollection(r.collection)) throw new SystemCollectionFixed({ name: r.collection, at: 'collection' });
  if (r.junctionCollection && isSystemCollection(r.junctionCollection))
    throw new SystemCollectionFixed({ name: r.junctionCollection, at: 'junctionCollection' });
  if (r.kind !== 'm2o' && r.target && isSystemCollection(r.target))
    throw new SystemCollectionFixed({ name: r.target, at: 'target' });
  needField(c, r.collection, r.field, 'field');
  if (own(c.fields, r.field)!.personal)
    throw new PersonalDataRule({ message: `${r.field} is personal: it cannot carry a relation`, at: 'field' });
  const carriers: readonly string[] = own(CARRIER_TYPES, r.kind) ?? [];
  if (!carriers.includes(own(c.fields, r.field)!.type)) throw new WrongCarrierType({ kind: r.kind, types: carriers });
  const target = r.kind === 'm2a' ? null : ref(s, r.target, 'target');
  if (r.kind === 'o2m') needField(target!, r.target!, r.targetField, 'targetField');
  if (r.kind === 'm2m') {
    const junction = ref(s, r.junctionCollection, 'junctionCollection');
    needField(junction, r.junctionCollection!, r.junctionField, 'junctionField');
    needField(junction, r.junctionCollection!, r.targetField, 'targetField');
  }
  if (usedBy(s, r.collection, r.field).length)
    throw new RelationOnFieldExists({ collection: r.collection, field: r.field });
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

function decideSchema(cmd: SchemaCommand, s: SchemaState): SchemaEvent[] {
  const at = cmd.data.now;
  const changed = (change: string, collection: string | null): SchemaEvent => ({
    type: 'SchemaChanged',
    data: { change, collection, at },
  });
  switch (cmd.type) {
    case 'CreateCollection': {
      const { collection } = cmd.data;
      if (own(s.collections, collection.name)) throw new CollectionExists({ name: collection.name });
      checkWorkflow(collection.workflow, {});
      checkSubject(collection.subject, {});
      return [{ type: 'CollectionCreated', data: { collection, at } }, changed('collection.created', collection.name)];
    }
    case 'UpdateCollection': {
      const c = changeable(s, cmd.data.name, 'name');
      checkWorkflow(cmd.data.changes.workflow, c.fields);
      if (cmd.data.changes.subject !== undefined) checkSubject(cmd.data.changes.subject, c.fields);
      return [
        { type: 'CollectionUpdated', data: { name: cmd.data.name, changes: cmd.data.changes, at } },
        changed('collection.updated', cmd.data.name),
      ];
    }
    case 'DeleteCollection': {
      changeable(s, cmd.data.name, 'name');
      const refs = usedBy(s, cmd.data.name).filter((r) => r.collection !== cmd.data.name);
      if (refs.length) throw new CollectionInUse({ name: cmd.data.name, relations: refs.map((r) => r.id) });
      return [
        { type: 'CollectionDeleted', data: { name: cmd.data.name, at } },
        changed('collection.deleted', cmd.data.name),
      ];
    }
    case 'CreateField': {
      const c = changeable(s, cmd.data.collection);
      const name = cmd.data.field.field;
      if ((SYSTEM_FIELDS as readonly string[]).includes(name)) throw new SystemFieldName({ field: name });
      if (own(c.fields, name)) throw new FieldExists({ collection: cmd.data.collection, field: name });
      checkPersonalField(c, cmd.data.field);
      checkSearchable(cmd.data.field);
      return [
        { type: 'FieldCreated', data: { collection: cmd.data.collection, field: cmd.data.field, at } },
        changed('field.created', cmd.data.collection),
      ];
    }
    case 'UpdateField': {
      const c = changeable(s, cmd.data.collection);
      const f = own(c.fields, cmd.data.field);
      if (!f) throw new FieldNotFound({ collection: cmd.data.collection, field: cmd.data.field, at: 'field' });
      if (f.type === 'enum' && cmd.data.changes.choices === null) throw new EnumNeedsChoices();
      checkPersonalField(c, { ...f, ...cmd.data.changes, personal: f.personal });
      checkSearchable({ ...f, ...cmd.data.changes, personal: f.personal });
      const { collection, field, changes } = cmd.data;
      return [{ type: 'FieldUpdated', data: { collection, field, changes, at } }, changed('field.updated', collection)];
    }
    case 'ChangeFieldType': {
      const { collection, field, to, choices } = cmd.data;
      const f = own(changeable(s, collection).fields, field);
      if (!f) throw new FieldNotFound({ collection, field, at: 'field' });
      if (f.type === to) return [];
      if (f.encrypted)
        throw new TypeNotConvertible({ field, from: f.type, to, why: 'an encrypted field keeps its type' });
      if (f.personal) throw new TypeNotConvertible({ field, from: f.type, to, why: 'a personal field keeps its type' });
      checkPersonalField(changeable(s, collection), { ...f, type: to });
      checkSearchable({ ...f, type: to });
      if (!convertible(f.type, to)) throw new TypeNotConvertible({ field, from: f.type, to });
      if (to === 'enum' && !choices?.length) throw new EnumNeedsChoices();
      for (const r of usedBy(s, collection, field)) {
        const carriers = own(CARRIER_TYPES, r.kind) ?? [];
        if (!carriers.includes(to)) throw new WrongCarrierType({ kind: r.kind, types: carriers });
      }
      const data = {
        collection,
        field,
        from: f.type,
        to,
        choices: to === 'enum' ? choices : null,
        unique: f.unique,
        at,
      };
      return [{ type: 'FieldTypeChanged', data }, changed('field.type_changed', collection)];
    }
    case 'DeleteField': {
      const c = changeable(s, cmd.data.collection);
      if (!own(c.fields, cmd.data.field))
        throw new FieldNotFound({ collection: cmd.data.collection, field: cmd.data.field, at: 'field' });
      const subject = c.def.subject;
      if (subject?.from === 'field' && subject.field === cmd.data.field)
        throw new PersonalDataRule({ message: `${cmd.data.field} is the collection's subject`, at: 'field' });
      if (usedBy(s, cmd.data.collection, cmd.data.field).length)
        throw new FieldCarriesRelation({ field: cmd.data.field });
      return [
        { type: 'FieldDeleted', data: { collection: cmd.data.collection, field: cmd.data.field, at } },
        changed('field.deleted', cmd.data.collection),
      ];
    }
    case 'CreateRelation':
      checkRelation(s, cmd.data.relation);
      return [
        { type: 'RelationCreated', data: { relation: cmd.data.relation, at } },
        changed('relation.created', cmd.data.relation.collection),
      ];
    case 'UpdateRelation': {
      const r = own(s.relations, cmd.data.id);
      if (!r) throw new RelationNotFound({ id: cmd.data.id });
      return [
        { type: 'RelationUpdated', data: { id: cmd.data.id, changes: cmd.data.changes, at } },
        changed('relation.updated', r.collection),
      ];
    }
    case 'DeleteRelation': {
      const r = own(s.relations, cmd.data.id);
      if (!r) throw new RelationNotFound({ id: cmd.data.id });
      return [{ type: 'RelationDeleted', data: { id: cmd.data.id, at } }, changed('relation.deleted', r.collection)];
    }
    case 'ApplyPlan':
      return decidePlan(cmd.data.steps, cmd.data.summary, at, s);
    default:
      return assertNever(cmd);
  }
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
