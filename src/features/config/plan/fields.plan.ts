import { LIMITS } from '../manifest.ts';
import { convertible, SYSTEM_FIELDS, type FieldDef } from '../../../contracts/schema/schema.types.ts';
import { isSystemCollection } from '../../../contracts/schema/system-collections.types.ts';
import { changedAttrs, problem, type Planning } from './planning.ts';

const FIELD_ATTRS = [
  'choices',
  'interface',
  'display',
  'options',
  'required',
  'nullable',
  'readonly',
  'unique',
  'sort',
  'default',
  'erasedValue',
  'searchable',
] as const;

/** Fields a manifest may not name: the system fields every collection has. */
export function checkFieldNames({ manifest, errors }: Planning): void {
  manifest.fields?.forEach((f, i) => {
    if ((SYSTEM_FIELDS as readonly string[]).includes(f.field))
      errors.push(
        problem('VALIDATION_FAILED', `${f.field} is a system field of every collection`, ['fields', i, 'field']),
      );
  });
}

/** The manifest's fields belong to user collections the site will have, at most so many to a collection. */
export function checkFieldCollections({ errors, wantFields, willHave }: Planning): void {
  for (const [collection, fields] of wantFields) {
    const at = [...fields.values()][0]!.i;
    if (isSystemCollection(collection))
      errors.push(
        problem('VALIDATION_FAILED', `${collection} is a system collection: its fields are fixed`, ['fields', at]),
      );
    else if (!willHave.has(collection))
      errors.push(
        problem('DANGLING_REFERENCE', `field of an unknown collection ${collection}`, ['fields', at, 'collection']),
      );
    if (fields.size > LIMITS.fieldsPerCollection)
      errors.push(
        problem('VALIDATION_FAILED', `a collection has at most ${LIMITS.fieldsPerCollection} fields`, [
          'fields',
          [...fields.values()][LIMITS.fieldsPerCollection]!.i,
        ]),
      );
  }
}

/** The fields the manifest names are created or changed; inside the deletion scope, the others dropped. */
export function planFields(p: Planning): void {
  for (const [collection, fields] of p.wantFields) {
    if (isSystemCollection(collection)) continue;
    const have = p.now.get(collection);
    const haveFields = new Map(have?.fields.map((f) => [f.field, f]) ?? []);
    for (const [name, { f: want, i }] of fields) {
      const cur = haveFields.get(name);
      if (!cur) {
        p.op({ resource: 'fields', action: 'create', key: `${collection}.${name}`, risk: 'low' });
        (want.personal ? p.steps.createPersonalFields : p.steps.createFields).push({
          type: 'CreateField',
          data: { collection, field: want },
        });
      } else changeField(p, collection, name, cur, want, i);
    }
  }
  if (p.manifest.fields) dropFields(p);
}

/** An existing field brought to the manifest's: a type change is high risk; encryption and personal data stay. */
function changeField(p: Planning, collection: string, name: string, cur: FieldDef, want: FieldDef, i: number): void {
  const key = `${collection}.${name}`;
  if (cur.encrypted !== want.encrypted) {
    p.errors.push(
      problem('VALIDATION_FAILED', 'the encryption of an existing field cannot change', ['fields', i, 'encrypted']),
    );
    return;
  }
  if ((cur.personal === true) !== (want.personal === true)) {
    p.errors.push(
      problem('VALIDATION_FAILED', 'whether an existing field is personal cannot change', ['fields', i, 'personal']),
    );
    return;
  }
  const changes = changedAttrs<FieldDef>(FIELD_ATTRS, cur, want).map(String);
  if (cur.type !== want.type) {
    if (!convertible(cur.type, want.type)) {
      p.errors.push(
        problem('VALIDATION_FAILED', `no conversion turns ${cur.type} values into ${want.type}`, ['fields', i, 'type']),
      );
      return;
    }
    p.op({
      resource: 'fields',
      action: 'update',
      key,
      risk: 'high',
      changes: ['type', ...changes],
      reason: `type ${cur.type} → ${want.type}${p.presence.fields.has(key) ? ' (the field holds values)' : ''}`,
    });
    p.steps.updateFields.push({
      type: 'ChangeFieldType',
      data: { collection, field: name, to: want.type, choices: want.choices },
    });
  } else if (changes.length) p.op({ resource: 'fields', action: 'update', key, risk: 'low', changes });
  else {
    p.counts.fields.unchanged++;
    return;
  }
  if (changes.length) {
    const patch = Object.fromEntries(changes.map((a) => [a, want[a as keyof FieldDef] ?? null]));
    p.steps.updateFields.push({ type: 'UpdateField', data: { collection, field: name, changes: patch } });
  }
}

/** Fields of kept collections in the deletion scope the manifest does not name: high risk when they hold values. */
function dropFields(p: Planning): void {
  for (const c of p.current.schema.collections) {
    const name = c.def.name;
    if (!p.scope.has(name) || p.dropCollections.has(name)) continue;
    const want = p.wantFields.get(name);
    for (const f of c.fields) {
      if (want?.has(f.field)) continue;
      const key = `${name}.${f.field}`;
      const held = p.presence.fields.has(key);
      p.op({
        resource: 'fields',
        action: 'delete',
        key,
        risk: held ? 'high' : 'medium',
        ...(held ? { reason: 'the field holds values' } : {}),
      });
      p.steps.deleteFields.push({ type: 'DeleteField', data: { collection: name, field: f.field } });
    }
  }
}
