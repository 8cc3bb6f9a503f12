import type { ErrorObject } from '../../kernel/http/errors.ts';
import { own } from '../../kernel/safe/keys.ts';
import {
  CARRIER_TYPES,
  convertible,
  fieldWithDefaults,
  SYSTEM_FIELDS,
  isSystemCollection,
  isVersioned,
  type CollectionDef,
  type FieldDef,
  type PlanStep,
  type RelationDef,
  type SchemaSnapshot,
} from '../schema/index.ts';
import {
  collectionFromManifest,
  LIMITS,
  MANIFEST_VERSION,
  relationKey,
  type Manifest,
  type ManifestRelation,
  type ManifestWebhook,
  type Mode,
  type SettingKey,
} from './manifest.ts';

export type Risk = 'low' | 'medium' | 'high';
export type Resource = 'collections' | 'fields' | 'relations' | 'webhooks' | 'settings';
export const RESOURCES: readonly Resource[] = ['collections', 'fields', 'relations', 'webhooks', 'settings'];

/** One change a plan makes, with its risk and, for an update, the attributes it changes. */
export interface Operation {
  resource: Resource;
  action: 'create' | 'update' | 'delete';
  key: string;
  risk: Risk;
  changes?: string[];
  reason?: string;
}

export type Counts = { create: number; update: number; unchanged: number; delete: number };
export type Diff = Record<Resource, Counts> & { risk: Risk };

/** The state a manifest is planned against: the schema, the webhooks and the settings of one site. */
export interface CurrentConfig {
  schema: Pick<SchemaSnapshot, 'collections' | 'relations' | 'deleted'>;
  webhooks: readonly ManifestWebhook[];
  settings: ReadonlyMap<string, unknown>;
}

/** What holds data: collections with items, and `collection.field` pairs with a value in some item. */
export interface Presence {
  collections: ReadonlySet<string>;
  fields: ReadonlySet<string>;
}

export interface Plan {
  errors: ErrorObject[];
  operations: Operation[];
  diff: Diff;
  /** The schema commands that carry the plan out, in an order the schema's rules accept. */
  steps: PlanStep[];
  webhooks: { create: ManifestWebhook[]; update: ManifestWebhook[]; delete: string[] };
  settings: { key: SettingKey; value: unknown }[];
}

const RANK = new Map<Risk, number>([
  ['low', 0],
  ['medium', 1],
  ['high', 2],
]);
const maxRisk = (ops: readonly Operation[]): Risk =>
  ops.reduce<Risk>((r, o) => (RANK.get(o.risk)! > RANK.get(r)! ? o.risk : r), 'low');

/** JSON with object keys in order: two values are the same configuration when these strings are equal. */
export function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  if (v && typeof v === 'object') {
    const o = v as Record<string, unknown>;
    return `{${Object.keys(o)
      .filter((k) => o[k] !== undefined)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical(o[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(v ?? null);
}
const same = (a: unknown, b: unknown) =>
  a === b ||
  (typeof a === 'object' && a !== null && typeof b === 'object' && b !== null && canonical(a) === canonical(b));

const COLLECTION_ATTRS = [
  'displayName',
  'icon',
  'note',
  'status_field',
  'sort_field',
  'workflow',
  'subject',
  'versioning',
] as const;
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

function changedAttrs<T extends object>(attrs: readonly (keyof T)[], now: T, want: T): (keyof T)[] {
  return attrs.filter((a) => !same(now[a] ?? null, want[a] ?? null));
}

/** A manifest relation with the defaults `POST /relations` gives (the junction's fields of an m2m). */
export function relationFromManifest(r: ManifestRelation, id: string): RelationDef {
  const target = r.target ?? null;
  const m2m = r.kind === 'm2m';
  return {
    id,
    kind: r.kind,
    collection: r.collection,
    field: r.field,
    target,
    junctionCollection: r.junctionCollection ?? null,
    targetField: r.targetField ?? (m2m && target ? `${target}_id` : null),
    junctionField: r.junctionField ?? (m2m ? `${r.collection}_id` : null),
    onDelete: r.onDelete,
  };
}
const SHAPE = ['kind', 'target', 'junctionCollection', 'targetField', 'junctionField'] as const;

const webhookForm = (w: ManifestWebhook) => ({
  ...w,
  events: [...w.events].sort(),
  collections: w.collections ? [...w.collections].sort() : null,
});

type ErrorCode = ErrorObject['code'];
const problem = (code: ErrorCode, message: string, path: (string | number)[]): ErrorObject => ({
  code,
  message,
  path: path.map(String),
  extensions: {},
});

/** Names that appear twice in a list: DUPLICATE_KEY at each repeat. */
function duplicates<T>(list: readonly T[] | undefined, key: (x: T) => string, at: string, out: ErrorObject[]) {
  const seen = new Set<string>();
  list?.forEach((x, i) => {
    const k = key(x);
    if (seen.has(k)) out.push(problem('DUPLICATE_KEY', `${at} ${k} appears more than once`, [at, i]));
    seen.add(k);
  });
}

/** The pairs a plan needs to know hold data before it can weigh its risk: fields it would drop or retype. */
export function fieldsToWeigh(current: CurrentConfig, manifest: Manifest, mode: Mode): [string, string][] {
  if (!manifest.fields) return [];
  const wanted = new Map(manifest.fields.map((f) => [`${f.collection}.${f.field}`, f.type]));
  const scope = deletionScope(current, manifest, mode);
  const out: [string, string][] = [];
  for (const c of current.schema.collections) {
    if (c.system) continue;
    for (const f of c.fields) {
      const type = wanted.get(`${c.def.name}.${f.field}`);
      if ((type === undefined && scope.has(c.def.name)) || (type !== undefined && type !== f.type))
        out.push([c.def.name, f.field]);
    }
  }
  return out;
}

/** The collections a plan would drop: whether they hold items decides the risk. */
export function collectionsToWeigh(current: CurrentConfig, manifest: Manifest, mode: Mode): string[] {
  if (!manifest.collections) return [];
  const wanted = new Set(manifest.collections.map((c) => c.name));
  return [...deletionScope(current, manifest, mode)].filter((n) => !wanted.has(n));
}

/** The user collections whose absent parts a mode deletes. */
function deletionScope(current: CurrentConfig, manifest: Manifest, mode: Mode): Set<string> {
  if (mode === 'merge') return new Set();
  const user = current.schema.collections.filter((c) => !c.system).map((c) => c.def.name);
  if (mode === 'replace-all') return new Set(user);
  const managed = new Set(manifest.managedScopes ?? []);
  return new Set(user.filter((n) => managed.has(n)));
}

/**
 * `plan(current, manifest, mode)`: the operations that bring the site to the manifest, each with its risk (high:
 * dropping a collection or field that holds data, changing a field's type, widening a relation's `onDelete` to
 * `cascade`; medium: deleting an empty resource; low: the rest), the manifest's errors, the per-resource diff, and
 * the schema steps that carry it out. Pure: the same inputs give the same plan, and a manifest exported from a state
 * plans to nothing against it. Arrays a manifest leaves out are left alone; `merge` never deletes,
 * `replace-managed` deletes inside `managedScopes`, `replace-all` deletes whatever the manifest does not name.
 */
export function plan(current: CurrentConfig, manifest: Manifest, mode: Mode, presence: Presence): Plan {
  const errors: ErrorObject[] = [];
  const operations: Operation[] = [];
  const counts = Object.fromEntries(
    RESOURCES.map((r) => [r, { create: 0, update: 0, unchanged: 0, delete: 0 }]),
  ) as Record<Resource, Counts>;
  const steps = {
    createCollections: [] as PlanStep[],
    createFields: [] as PlanStep[],
    // A personal field needs its collection's subject, which may name a field created just before.
    setSubjects: [] as PlanStep[],
    createPersonalFields: [] as PlanStep[],
    updateFields: [] as PlanStep[],
    updateCollections: [] as PlanStep[],
    deleteRelations: [] as PlanStep[],
    createRelations: [] as PlanStep[],
    updateRelations: [] as PlanStep[],
    deleteFields: [] as PlanStep[],
    // A subject goes once no field is personal any more.
    clearSubjects: [] as PlanStep[],
    deleteCollections: [] as PlanStep[],
  };
  const subjectStep = (name: string, subject: CollectionDef['subject']): PlanStep => ({
    type: 'UpdateCollection',
    data: { name, changes: { subject: subject ?? null } },
  });
  const op = (o: Operation) => {
    operations.push(o);
    counts[o.resource][o.action]++;
  };
  const empty: Plan = {
    errors,
    operations,
    diff: { ...counts, risk: 'low' },
    steps: [],
    webhooks: { create: [], update: [], delete: [] },
    settings: [],
  };
  if (manifest.version !== MANIFEST_VERSION) {
    errors.push(
      problem(
        'UNSUPPORTED_MANIFEST_VERSION',
        `manifest version ${JSON.stringify(manifest.version)} is not supported; this service reads ${MANIFEST_VERSION}`,
        ['version'],
      ),
    );
    return empty;
  }

  // Keys: each resource once.
  duplicates(manifest.collections, (c) => c.name, 'collections', errors);
  duplicates(manifest.fields, (f) => `${f.collection}.${f.field}`, 'fields', errors);
  duplicates(manifest.relations, relationKey, 'relations', errors);
  duplicates(manifest.webhooks, (w) => w.name, 'webhooks', errors);
  duplicates(manifest.settings, (s) => s.key, 'settings', errors);
  duplicates(manifest.managedScopes, (s) => s, 'managedScopes', errors);

  const now = new Map(current.schema.collections.map((c) => [c.def.name, c]));
  const deleted = new Set(current.schema.deleted);
  const scope = deletionScope(current, manifest, mode);
  const wantCollections = new Map((manifest.collections ?? []).map((c) => [c.name, c]));

  // The collections the site will have, and each one's fields: what references must land on.
  const willHave = new Set<string>();
  for (const c of current.schema.collections)
    if (c.system || !scope.has(c.def.name) || !manifest.collections || wantCollections.has(c.def.name))
      willHave.add(c.def.name);
  for (const name of wantCollections.keys()) willHave.add(name);
  const wantFields = new Map<string, Map<string, { f: FieldDef; i: number }>>();
  manifest.fields?.forEach((mf, i) => {
    const { collection, ...def } = mf;
    let m = wantFields.get(collection);
    if (!m) wantFields.set(collection, (m = new Map()));
    m.set(mf.field, { f: fieldWithDefaults(def), i });
  });
  const fieldsAfter = (collection: string): Set<string> => {
    const out = new Set<string>();
    const existing = now.get(collection);
    const keepAll = !manifest.fields || !scope.has(collection);
    if (existing && keepAll) for (const f of existing.fields) out.add(f.field);
    for (const name of wantFields.get(collection)?.keys() ?? []) out.add(name);
    return out;
  };

  manifest.collections?.forEach((c, i) => {
    if (isSystemCollection(c.name))
      errors.push(
        problem('VALIDATION_FAILED', `${c.name} is a system collection: its schema is fixed`, ['collections', i]),
      );
    else if (deleted.has(c.name) && !now.has(c.name))
      errors.push(
        problem('VALIDATION_FAILED', `a deleted collection keeps the name ${c.name} (its items are kept)`, [
          'collections',
          i,
          'name',
        ]),
      );
  });
  manifest.fields?.forEach((f, i) => {
    if ((SYSTEM_FIELDS as readonly string[]).includes(f.field))
      errors.push(
        problem('VALIDATION_FAILED', `${f.field} is a system field of every collection`, ['fields', i, 'field']),
      );
  });
  manifest.relations?.forEach((r, i) => {
    // A system collection may be the target of an m2o only (a file reference): it carries nothing, holds no junction.
    const system = (key: 'collection' | 'junctionCollection' | 'target', name: string | null | undefined) => {
      if (name && isSystemCollection(name))
        errors.push(
          problem('VALIDATION_FAILED', `${name} is a system collection: it takes only m2o references`, [
            'relations',
            i,
            key,
          ]),
        );
    };
    system('collection', r.collection);
    system('junctionCollection', r.junctionCollection);
    if (r.kind !== 'm2o') system('target', r.target);
  });
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
  // Fields named by a collection's own attributes.
  manifest.collections?.forEach((c, i) => {
    const fields = fieldsAfter(c.name);
    for (const attr of ['status_field', 'sort_field'] as const) {
      const f = c[attr];
      if (f && f !== 'status' && f !== 'sort' && !fields.has(f))
        errors.push(problem('DANGLING_REFERENCE', `${attr} names an unknown field ${f}`, ['collections', i, attr]));
    }
    const wf = c.workflow?.field;
    if (wf && wf !== 'status' && !fields.has(wf))
      errors.push(
        problem('DANGLING_REFERENCE', `the workflow names an unknown field ${wf}`, [
          'collections',
          i,
          'workflow',
          'field',
        ]),
      );
  });
  manifest.relations?.forEach((r, i) => {
    const at = ['relations', i];
    const need = (collection: string | null | undefined, key: string) => {
      if (!collection) errors.push(problem('VALIDATION_FAILED', `a ${r.kind} relation needs ${key}`, [...at, key]));
      else if (!willHave.has(collection))
        errors.push(problem('DANGLING_REFERENCE', `relation to an unknown collection ${collection}`, [...at, key]));
      return !!collection && willHave.has(collection);
    };
    const needField = (collection: string, field: string | null | undefined, key: string) => {
      if (field && !fieldsAfter(collection).has(field))
        errors.push(problem('DANGLING_REFERENCE', `relation to an unknown field ${collection}.${field}`, [...at, key]));
    };
    const def = relationFromManifest(r, '');
    if (need(r.collection, 'collection')) needField(r.collection, r.field, 'field');
    if (r.kind !== 'm2a' && need(r.target, 'target') && r.kind === 'o2m')
      needField(r.target!, def.targetField, 'targetField');
    if (r.kind === 'm2m' && need(r.junctionCollection, 'junctionCollection')) {
      needField(r.junctionCollection!, def.junctionField, 'junctionField');
      needField(r.junctionCollection!, def.targetField, 'targetField');
    }
  });
  manifest.webhooks?.forEach((w, i) =>
    w.collections?.forEach((c, j) => {
      if (!willHave.has(c))
        errors.push(
          problem('DANGLING_REFERENCE', `webhook of an unknown collection ${c}`, ['webhooks', i, 'collections', j]),
        );
    }),
  );

  // Collections.
  manifest.collections?.forEach((mc, i) => {
    if (isSystemCollection(mc.name)) return;
    const want = collectionFromManifest(mc);
    const have = now.get(mc.name);
    if (!have) {
      if (deleted.has(mc.name)) return;
      op({ resource: 'collections', action: 'create', key: mc.name, risk: 'low' });
      // A workflow on a field the collection does not have yet is set once its fields exist.
      const { workflow, subject, ...rest } = want;
      const later = workflow && workflow.field !== 'status';
      const subjectLater = subject?.from === 'field' && subject.field !== 'user_created';
      steps.createCollections.push({
        type: 'CreateCollection',
        data: {
          collection: { ...rest, workflow: later ? null : workflow, subject: subjectLater ? null : (subject ?? null) },
        },
      });
      if (later)
        steps.updateCollections.push({ type: 'UpdateCollection', data: { name: mc.name, changes: { workflow } } });
      if (subjectLater) steps.setSubjects.push(subjectStep(mc.name, subject));
      return;
    }
    for (const fixed of ['singleton', 'primaryKeyType'] as const)
      if (have.def[fixed] !== want[fixed])
        errors.push(
          problem('VALIDATION_FAILED', `${fixed} of an existing collection cannot change`, ['collections', i, fixed]),
        );
    // A definition made before `versioning` existed has none: it is on.
    const changes = changedAttrs<CollectionDef>(
      COLLECTION_ATTRS,
      { ...have.def, versioning: isVersioned(have.def) },
      want,
    );
    if (changes.length === 0) {
      counts.collections.unchanged++;
      return;
    }
    op({ resource: 'collections', action: 'update', key: mc.name, risk: 'low', changes: changes.map(String) });
    const patch = Object.fromEntries(changes.filter((a) => a !== 'subject').map((a) => [a, want[a] ?? null]));
    if (Object.keys(patch).length)
      steps.updateCollections.push({ type: 'UpdateCollection', data: { name: mc.name, changes: patch } });
    if (changes.includes('subject'))
      (want.subject ? steps.setSubjects : steps.clearSubjects).push(subjectStep(mc.name, want.subject));
  });
  const dropCollections = new Set<string>();
  if (manifest.collections)
    for (const name of scope)
      if (!wantCollections.has(name)) {
        dropCollections.add(name);
        const held = presence.collections.has(name);
        op({
          resource: 'collections',
          action: 'delete',
          key: name,
          risk: held ? 'high' : 'medium',
          ...(held ? { reason: 'the collection holds items' } : {}),
        });
        steps.deleteCollections.push({ type: 'DeleteCollection', data: { name } });
      }

  // Fields.
  for (const [collection, fields] of wantFields) {
    if (isSystemCollection(collection)) continue;
    const have = now.get(collection);
    const haveFields = new Map(have?.fields.map((f) => [f.field, f]) ?? []);
    for (const [name, { f: want, i }] of fields) {
      const key = `${collection}.${name}`;
      const cur = haveFields.get(name);
      if (!cur) {
        op({ resource: 'fields', action: 'create', key, risk: 'low' });
        (want.personal ? steps.createPersonalFields : steps.createFields).push({
          type: 'CreateField',
          data: { collection, field: want },
        });
        continue;
      }
      if (cur.encrypted !== want.encrypted) {
        errors.push(
          problem('VALIDATION_FAILED', 'the encryption of an existing field cannot change', ['fields', i, 'encrypted']),
        );
        continue;
      }
      if ((cur.personal === true) !== (want.personal === true)) {
        errors.push(
          problem('VALIDATION_FAILED', 'whether an existing field is personal cannot change', [
            'fields',
            i,
            'personal',
          ]),
        );
        continue;
      }
      const changes = changedAttrs<FieldDef>(FIELD_ATTRS, cur, want).map(String);
      if (cur.type !== want.type) {
        if (!convertible(cur.type, want.type)) {
          errors.push(
            problem('VALIDATION_FAILED', `no conversion turns ${cur.type} values into ${want.type}`, [
              'fields',
              i,
              'type',
            ]),
          );
          continue;
        }
        op({
          resource: 'fields',
          action: 'update',
          key,
          risk: 'high',
          changes: ['type', ...changes],
          reason: `type ${cur.type} → ${want.type}${presence.fields.has(key) ? ' (the field holds values)' : ''}`,
        });
        steps.updateFields.push({
          type: 'ChangeFieldType',
          data: { collection, field: name, to: want.type, choices: want.choices },
        });
      } else if (changes.length) op({ resource: 'fields', action: 'update', key, risk: 'low', changes });
      else {
        counts.fields.unchanged++;
        continue;
      }
      if (changes.length) {
        const patch = Object.fromEntries(changes.map((a) => [a, want[a as keyof FieldDef] ?? null]));
        steps.updateFields.push({ type: 'UpdateField', data: { collection, field: name, changes: patch } });
      }
    }
  }
  if (manifest.fields)
    for (const c of current.schema.collections) {
      const name = c.def.name;
      if (!scope.has(name) || dropCollections.has(name)) continue;
      const want = wantFields.get(name);
      for (const f of c.fields) {
        if (want?.has(f.field)) continue;
        const key = `${name}.${f.field}`;
        const held = presence.fields.has(key);
        op({
          resource: 'fields',
          action: 'delete',
          key,
          risk: held ? 'high' : 'medium',
          ...(held ? { reason: 'the field holds values' } : {}),
        });
        steps.deleteFields.push({ type: 'DeleteField', data: { collection: name, field: f.field } });
      }
    }

  // Relations, by the field that carries them.
  const haveRelations = new Map(current.schema.relations.map((r) => [relationKey(r), r]));
  const wantRelations = new Set<string>();
  manifest.relations?.forEach((mr) => {
    const key = relationKey(mr);
    wantRelations.add(key);
    const cur = haveRelations.get(key);
    const want = relationFromManifest(mr, cur?.id ?? relationId(key));
    if (!cur) {
      op({ resource: 'relations', action: 'create', key, risk: 'low' });
      steps.createRelations.push({ type: 'CreateRelation', data: { relation: want } });
      return;
    }
    if (SHAPE.some((a) => (cur[a] ?? null) !== (want[a] ?? null))) {
      // Another relation on the same field: the old one goes, the new one comes.
      op({
        resource: 'relations',
        action: 'delete',
        key,
        risk: 'medium',
        reason: 'replaced by a relation of another shape',
      });
      op({ resource: 'relations', action: 'create', key, risk: 'low' });
      steps.deleteRelations.push({ type: 'DeleteRelation', data: { id: cur.id } });
      steps.createRelations.push({
        type: 'CreateRelation',
        data: { relation: { ...want, id: relationId(`${key}:${cur.id}`) } },
      });
      return;
    }
    if (cur.onDelete === want.onDelete) {
      counts.relations.unchanged++;
      return;
    }
    const widened = want.onDelete === 'cascade';
    op({
      resource: 'relations',
      action: 'update',
      key,
      risk: widened ? 'high' : 'low',
      changes: ['onDelete'],
      ...(widened ? { reason: `onDelete ${cur.onDelete} → cascade` } : {}),
    });
    steps.updateRelations.push({ type: 'UpdateRelation', data: { id: cur.id, changes: { onDelete: want.onDelete } } });
  });
  if (manifest.relations)
    for (const r of current.schema.relations) {
      const key = relationKey(r);
      if (wantRelations.has(key) || !scope.has(r.collection)) continue;
      op({ resource: 'relations', action: 'delete', key, risk: 'medium' });
      steps.deleteRelations.push({ type: 'DeleteRelation', data: { id: r.id } });
    }

  // Each relation the site will have is carried by a field of a type its kind accepts.
  const typeAfter = (collection: string, field: string) =>
    wantFields.get(collection)?.get(field)?.f.type ?? now.get(collection)?.fields.find((f) => f.field === field)?.type;
  const carried = (kind: RelationDef['kind'], collection: string, field: string, path: (string | number)[]) => {
    const type = typeAfter(collection, field);
    const carriers = own(CARRIER_TYPES, kind) ?? [];
    if (type && !carriers.includes(type))
      errors.push(
        problem('VALIDATION_FAILED', `a ${kind} relation is carried by a field of type ${carriers.join(' or ')}`, path),
      );
  };
  manifest.relations?.forEach((r, i) => carried(r.kind, r.collection, r.field, ['relations', i, 'field']));
  for (const r of current.schema.relations)
    if (
      !wantRelations.has(relationKey(r)) &&
      !steps.deleteRelations.some((st) => st.type === 'DeleteRelation' && st.data.id === r.id)
    ) {
      const at = manifest.fields?.findIndex((f) => f.collection === r.collection && f.field === r.field) ?? -1;
      carried(r.kind, r.collection, r.field, at >= 0 ? ['fields', at, 'type'] : ['relations']);
    }

  // A relation the plan keeps may not lose what it stands on.
  const droppedRelations = new Set(steps.deleteRelations.map((st) => (st.type === 'DeleteRelation' ? st.data.id : '')));
  const droppedFields = new Set(
    steps.deleteFields.map((st) => (st.type === 'DeleteField' ? `${st.data.collection}.${st.data.field}` : '')),
  );
  const gone = (collection: string | null, field?: string | null) =>
    !!collection && (dropCollections.has(collection) || (!!field && droppedFields.has(`${collection}.${field}`)));
  for (const r of current.schema.relations) {
    if (droppedRelations.has(r.id)) continue;
    const standsOn =
      gone(r.collection, r.field) ||
      gone(r.target) ||
      gone(r.junctionCollection) ||
      (r.kind === 'o2m' && gone(r.target, r.targetField)) ||
      (r.kind === 'm2m' && (gone(r.junctionCollection, r.junctionField) || gone(r.junctionCollection, r.targetField)));
    if (standsOn)
      errors.push(
        problem(
          'DANGLING_REFERENCE',
          `the relation on ${relationKey(r)} stays (outside what this manifest manages) but what it points at would be deleted`,
          manifest.relations ? ['relations'] : ['managedScopes'],
        ),
      );
  }

  // Webhooks, by name.
  const webhooks: Plan['webhooks'] = { create: [], update: [], delete: [] };
  if (manifest.webhooks) {
    const haveHooks = new Map(current.webhooks.map((w) => [w.name, w]));
    const names = new Set<string>();
    for (const w of manifest.webhooks) {
      names.add(w.name);
      const cur = haveHooks.get(w.name);
      if (!cur) {
        op({ resource: 'webhooks', action: 'create', key: w.name, risk: 'low' });
        webhooks.create.push(w);
      } else if (!same(webhookForm(cur), webhookForm(w))) {
        const changes = (['url', 'events', 'collections', 'enabled'] as const).filter(
          (a) => !same(webhookForm(cur)[a], webhookForm(w)[a]),
        );
        op({ resource: 'webhooks', action: 'update', key: w.name, risk: 'low', changes: [...changes] });
        webhooks.update.push(w);
      } else counts.webhooks.unchanged++;
    }
    if (mode === 'replace-all')
      for (const w of current.webhooks)
        if (!names.has(w.name)) {
          op({ resource: 'webhooks', action: 'delete', key: w.name, risk: 'medium' });
          webhooks.delete.push(w.name);
        }
  }

  // Settings, by key (a manifest sets them; it never unsets one).
  const settings: Plan['settings'] = [];
  for (const s of manifest.settings ?? []) {
    const cur = current.settings.get(s.key);
    if (same(cur ?? null, s.value ?? null)) counts.settings.unchanged++;
    else {
      op({ resource: 'settings', action: cur === undefined ? 'create' : 'update', key: s.key, risk: 'low' });
      settings.push({ key: s.key, value: s.value });
    }
  }

  if (errors.length) return { ...empty, diff: { ...counts, risk: maxRisk(operations) } };
  return {
    errors,
    operations,
    diff: { ...counts, risk: maxRisk(operations) },
    steps: [
      ...steps.createCollections,
      ...steps.deleteRelations,
      ...steps.createFields,
      ...steps.setSubjects,
      ...steps.createPersonalFields,
      ...steps.updateFields,
      ...steps.updateCollections,
      ...steps.createRelations,
      ...steps.updateRelations,
      ...steps.deleteFields,
      ...steps.clearSubjects,
      ...steps.deleteCollections,
    ],
    webhooks,
    settings,
  };
}

/**
 * A relation created by a plan gets an id derived from the field that carries it, so two plans of one manifest
 * (a dry run and its apply, two nodes) name it alike.
 */
function relationId(key: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) h = Math.imul(h ^ key.charCodeAt(i), 0x01000193) >>> 0;
  return `rel_${key.replace(/[^a-z0-9_]/g, '_').slice(0, 40)}_${h.toString(36)}`;
}
