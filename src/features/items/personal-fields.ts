import type { AppDeps } from '../../deps.ts';
import type { ActorRef } from '../../kernel/es/event.ts';
import type { ErrorObject } from '../../kernel/http/errors.ts';
import { personalSubject, sealPersonal, subjectKeys } from '../../platform/privacy/pii.ts';
import { readAsSite } from '../../kernel/tenancy/site.ts';
import { findItem } from '../../../projections/item-documents/index.ts';
import { type SiteSchema } from '../../../projections/schema/index.ts';
import { findUserById } from '../../../projections/users/index.ts';
import { itemSubjectId, type FieldDef } from '../../contracts/schema/schema.types.ts';
import { placeOf } from './encrypted-fields.ts';
import { InvalidValues } from './item.errors.ts';
import type { ItemValues } from '../../contracts/items/item.events.ts';
import type { CollectionSchema } from './item.reads.ts';
import { typeProblem } from './item.values.ts';

/** One item's values on their way into a command: its id, whether it is new, and where its values sit in the body. */
export interface PersonalTarget {
  id: string;
  values: ItemValues;
  creating: boolean;
  path: string[];
}

const personalFields = (s: CollectionSchema): FieldDef[] => s.fields.filter((f) => f.personal);

/**
 * Seals the values of personal fields with their subject's key before they go into a command (issue "personal
 * fields in content"), so neither the log nor the read model holds them in clear, and erasing the subject (its key
 * destroyed) leaves them unreadable for good. The subject is the item itself, or the user its subject field names
 * (`user_created`: the author); a user subject must be a member of the site, and an item holding personal values
 * keeps its subject. A collection without personal fields costs nothing.
 */
export async function sealPersonalValues(
  deps: Pick<AppDeps, 'db' | 'config'>,
  siteId: string,
  actor: ActorRef,
  s: CollectionSchema,
  targets: PersonalTarget[],
): Promise<ItemValues[]> {
  const fields = personalFields(s);
  const given = (t: PersonalTarget) =>
    fields.filter((f) => Object.hasOwn(t.values, f.field) && t.values[f.field] !== null);
  if (!fields.length || !targets.some((t) => given(t).length || subjectChange(s, t)))
    return targets.map((t) => t.values);
  const problems: ErrorObject[] = [];
  const problem = (t: PersonalTarget, field: string, message: string, reason: string) =>
    problems.push({ code: 'VALIDATION_FAILED', message, path: [...t.path, field], extensions: { reason } });
  const subjects: (string | null)[] = [];
  // A bulk write names the same few people many times: each is looked up once.
  const members = new Map<string, Promise<boolean>>();
  const isMember = (userId: string) => {
    let known = members.get(userId);
    if (!known) members.set(userId, (known = memberOf(deps, siteId, userId)));
    return known;
  };
  for (const t of targets) {
    for (const f of given(t)) {
      // The value as given, before the short cut that lets an already sealed value through.
      const p = personalSubject(t.values[f.field]) ? 'must be a plain value' : typeProblem(f, t.values[f.field]);
      if (p) problem(t, f.field, `${f.field} ${p}`, 'type');
    }
    subjects.push(
      await subjectFor(deps, siteId, actor, s, t, given(t).length > 0, isMember, (field, message) =>
        problem(t, field, message, 'subject'),
      ),
    );
  }
  if (problems.length) throw new InvalidValues(problems);
  const wanted = subjects.filter((x): x is string => x !== null);
  const keys = await subjectKeys(deps.db, deps.config.keyring, wanted, true);
  return targets.map((t, i) => {
    const subject = subjects[i];
    const fieldsGiven = given(t);
    if (!subject || !fieldsGiven.length) return t.values;
    const key = keys.get(subject);
    // Only an erased subject has no key after the insert above: nothing new is recorded about them.
    if (!key) throw new InvalidValues([subjectErased(t, fieldsGiven[0]!.field)]);
    const out = { ...t.values };
    for (const f of fieldsGiven)
      Object.defineProperty(out, f.field, {
        value: sealPersonal(key, subject, t.values[f.field], placeOf(siteId, s.collection.name, t.id, f.field)),
        enumerable: true,
        writable: true,
        configurable: true,
      });
    return out;
  });
}

const subjectErased = (t: PersonalTarget, field: string): ErrorObject => ({
  code: 'VALIDATION_FAILED',
  message: `the subject of ${field} was erased: no personal data about them is recorded`,
  path: [...t.path, field],
  extensions: { reason: 'subject_erased' },
});

/** Whether a write changes the field that names the item's subject. */
function subjectChange(s: CollectionSchema, t: PersonalTarget): boolean {
  const subject = s.collection.subject;
  return !t.creating && subject?.from === 'field' && Object.hasOwn(t.values, subject.field);
}

/**
 * The subject of one item's personal values: its own subject id, or the user its subject field names. Null when
 * it writes none and changes no subject. A change of the subject field of an item that holds personal values is
 * refused: those values stay sealed for the subject they were given about.
 */
async function subjectFor(
  deps: Pick<AppDeps, 'db'>,
  siteId: string,
  actor: ActorRef,
  s: CollectionSchema,
  t: PersonalTarget,
  writesPersonal: boolean,
  isMember: (userId: string) => Promise<boolean>,
  refuse: (field: string, message: string) => void,
): Promise<string | null> {
  const subject = s.collection.subject;
  const collection = s.collection.name;
  if (!subject) return null;
  if (subject.from === 'item') return writesPersonal ? itemSubjectId(siteId, collection, t.id) : null;
  const current = t.creating ? null : await readAsSite(deps.db, siteId, (db) => findItem(db, siteId, collection, t.id));
  let userId: unknown;
  if (subject.field === 'user_created') {
    userId = t.creating ? (actor.type === 'user' ? actor.id : null) : (current?.created_by ?? null);
  } else {
    const was = current?.data[subject.field] ?? null;
    userId = Object.hasOwn(t.values, subject.field) ? t.values[subject.field] : was;
    if (current && userId !== was && holdsPersonal(s, current.data)) {
      refuse(subject.field, `${subject.field} names the subject of this item's personal values: it cannot change`);
      return null;
    }
  }
  if (!writesPersonal) return null;
  const field = subject.field;
  if (typeof userId !== 'string' || !userId) {
    refuse(field, `personal values need a subject: ${field} names none`);
    return null;
  }
  if (!(await isMember(userId))) {
    refuse(field, `${field} must name a member of the site to hold personal values about them`);
    return null;
  }
  return userId;
}

async function memberOf(deps: Pick<AppDeps, 'db'>, siteId: string, userId: string): Promise<boolean> {
  const user = await findUserById(deps.db, userId);
  return !!user && Object.hasOwn(user.roles, siteId);
}

const holdsPersonal = (s: CollectionSchema, data: Record<string, unknown>) =>
  personalFields(s).some((f) => Object.hasOwn(data, f.field) && data[f.field] !== null);

/** What a personal value reads as once its subject is erased. */
export const erasedValueOf = (schema: SiteSchema, collection: string, field: string): unknown =>
  schema.fields.get(collection)?.get(field)?.erasedValue ?? null;
