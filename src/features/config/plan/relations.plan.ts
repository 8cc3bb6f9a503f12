import { own } from '../../../kernel/safe/keys.ts';
import { CARRIER_TYPES, type RelationDef } from '../../../contracts/schema/schema.types.ts';
import { isSystemCollection } from '../../../contracts/schema/system-collections.types.ts';
import { relationKey, type ManifestRelation } from '../manifest.ts';
import { problem, type Planning } from './planning.ts';

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

/**
 * A relation created by a plan gets an id derived from the field that carries it, so two plans of one manifest
 * (a dry run and its apply, two nodes) name it alike.
 */
function relationId(key: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) h = Math.imul(h ^ key.charCodeAt(i), 0x01000193) >>> 0;
  return `rel_${key.replace(/[^a-z0-9_]/g, '_').slice(0, 40)}_${h.toString(36)}`;
}

/** A system collection may be the target of an m2o only (a file reference): it carries nothing, holds no junction. */
export function checkRelationEnds({ manifest, errors }: Planning): void {
  manifest.relations?.forEach((r, i) => {
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
}

/** Each manifest relation has the ends its kind needs, on collections and fields the site will have. */
export function checkRelationReferences({ manifest, errors, willHave, fieldsAfter }: Planning): void {
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
}

/**
 * Relations, by the field that carries them: created, changed or, inside the deletion scope, dropped; then every
 * relation the site keeps must stand on fields of a type its kind accepts and on nothing the plan deletes.
 */
export function planRelations(p: Planning): void {
  const haveRelations = new Map(p.current.schema.relations.map((r) => [relationKey(r), r]));
  const wantRelations = new Set<string>();
  p.manifest.relations?.forEach((mr) => {
    const key = relationKey(mr);
    wantRelations.add(key);
    const cur = haveRelations.get(key);
    const want = relationFromManifest(mr, cur?.id ?? relationId(key));
    if (!cur) {
      p.op({ resource: 'relations', action: 'create', key, risk: 'low' });
      p.steps.createRelations.push({ type: 'CreateRelation', data: { relation: want } });
    } else changeRelation(p, key, cur, want);
  });
  if (p.manifest.relations)
    for (const r of p.current.schema.relations) {
      const key = relationKey(r);
      if (wantRelations.has(key) || !p.scope.has(r.collection)) continue;
      p.op({ resource: 'relations', action: 'delete', key, risk: 'medium' });
      p.steps.deleteRelations.push({ type: 'DeleteRelation', data: { id: r.id } });
    }
  checkCarriers(p, wantRelations);
  checkFooting(p);
}

/** An existing relation brought to the manifest's: another shape replaces it, a cascade widens it (high risk). */
function changeRelation(p: Planning, key: string, cur: RelationDef, want: RelationDef): void {
  if (SHAPE.some((a) => (cur[a] ?? null) !== (want[a] ?? null))) {
    // Another relation on the same field: the old one goes, the new one comes.
    p.op({
      resource: 'relations',
      action: 'delete',
      key,
      risk: 'medium',
      reason: 'replaced by a relation of another shape',
    });
    p.op({ resource: 'relations', action: 'create', key, risk: 'low' });
    p.steps.deleteRelations.push({ type: 'DeleteRelation', data: { id: cur.id } });
    p.steps.createRelations.push({
      type: 'CreateRelation',
      data: { relation: { ...want, id: relationId(`${key}:${cur.id}`) } },
    });
    return;
  }
  if (cur.onDelete === want.onDelete) {
    p.counts.relations.unchanged++;
    return;
  }
  const widened = want.onDelete === 'cascade';
  p.op({
    resource: 'relations',
    action: 'update',
    key,
    risk: widened ? 'high' : 'low',
    changes: ['onDelete'],
    ...(widened ? { reason: `onDelete ${cur.onDelete} → cascade` } : {}),
  });
  p.steps.updateRelations.push({ type: 'UpdateRelation', data: { id: cur.id, changes: { onDelete: want.onDelete } } });
}

/** Each relation the site will have is carried by a field of a type its kind accepts. */
function checkCarriers(
  { current, manifest, errors, steps, now, wantFields }: Planning,
  wantRelations: Set<string>,
): void {
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
}

/** A relation the plan keeps may not lose what it stands on. */
function checkFooting({ current, manifest, errors, steps, dropCollections }: Planning): void {
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
}
