import { own } from '../../kernel/safe/keys.ts';
import {
  CollectionNotFound,
  PersonalDataRule,
  RelationKeyRequired,
  RelationOnFieldExists,
  SearchableRule,
  SystemCollectionFixed,
  UnknownCollection,
  UnknownRelationField,
  UnknownWorkflowField,
  WrongCarrierType,
} from './schema.errors.ts';
import type { SchemaState } from '../../contracts/schema/schema.snapshot.ts';
import { isSystemCollection } from '../../contracts/schema/system-collections.types.ts';
import {
  CARRIER_TYPES,
  searchableRefusal,
  type FieldDef,
  type FieldType,
  type RelationDef,
  type SubjectDef,
  type Workflow,
} from '../../contracts/schema/schema.types.ts';

type CollectionState = SchemaState['collections'][string];

/** A workflow gates `status` or one of the collection's fields (a new collection has only `status`). */
export function checkWorkflow(workflow: Workflow | null | undefined, fields: Record<string, FieldDef>): void {
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
export function changeable(s: SchemaState, name: string, at = 'collection'): CollectionState {
  const c = live(s, name, at);
  if (isSystemCollection(name)) throw new SystemCollectionFixed({ name, at });
  return c;
}

/** The relations a field carries or, without a field, every relation that involves the collection. */
export function usedBy(s: SchemaState, collection: string, field?: string): RelationDef[] {
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
export function checkSubject(subject: SubjectDef | null | undefined, fields: Record<string, FieldDef>): void {
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
export function checkPersonalField(c: CollectionState, f: FieldDef): void {
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
export function checkSearchable(f: FieldDef): void {
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

function needField(c: CollectionState, collection: string, field: string | null, at: string): void {
  if (!field) throw new RelationKeyRequired({ at, byKind: true });
  if (!own(c.fields, field)) throw new UnknownRelationField({ collection, field, at });
}

/**
 * Where each kind keeps its references (DESIGN decisions): m2o holds the target id in `field`; o2m reads the
 * target items whose `targetField` holds this id; m2m goes through junction items holding `junctionField` (this id)
 * and `targetField` (the target id); m2a holds `[{ collection, item }]` in `field`.
 */
export function checkRelation(s: SchemaState, r: RelationDef): void {
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
