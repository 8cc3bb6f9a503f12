import type { PlanStep } from '../../schema/index.ts';
import { isSystemCollection } from '../../../contracts/schema/system-collections.types.ts';
import { isVersioned, type CollectionDef } from '../../../contracts/schema/schema.types.ts';
import type { SnapshotCollection } from '../../../contracts/schema/schema.snapshot.ts';
import { collectionFromManifest, type ManifestCollection } from '../manifest.ts';
import { changedAttrs, problem, type Planning } from './planning.ts';

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

const subjectStep = (name: string, subject: CollectionDef['subject']): PlanStep => ({
  type: 'UpdateCollection',
  data: { name, changes: { subject: subject ?? null } },
});

/** Collections a manifest may not make: a system collection, or one under a deleted collection's name. */
export function checkCollectionNames({ manifest, errors, now, deleted }: Planning): void {
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
}

/** Fields named by a collection's own attributes (status, sort, workflow) are fields the collection will have. */
export function checkCollectionReferences({ manifest, errors, fieldsAfter }: Planning): void {
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
}

/** The collections the manifest names are created or updated; inside the deletion scope, the others dropped. */
export function planCollections(p: Planning): void {
  p.manifest.collections?.forEach((mc, i) => {
    if (isSystemCollection(mc.name)) return;
    const want = collectionFromManifest(mc);
    const have = p.now.get(mc.name);
    if (!have) {
      if (!p.deleted.has(mc.name)) createCollection(p, mc, want);
      return;
    }
    updateCollection(p, mc, i, have, want);
  });
  if (p.manifest.collections) dropCollections(p);
}

/** A new collection: what names a field is set in later steps, once its fields exist. */
function createCollection(p: Planning, mc: ManifestCollection, want: CollectionDef): void {
  p.op({ resource: 'collections', action: 'create', key: mc.name, risk: 'low' });
  // A workflow or a subject on a field the collection does not have yet is set once its fields exist.
  const { workflow, subject, ...rest } = want;
  const later = workflow && workflow.field !== 'status';
  const subjectLater = subject?.from === 'field' && subject.field !== 'user_created';
  p.steps.createCollections.push({
    type: 'CreateCollection',
    data: {
      collection: { ...rest, workflow: later ? null : workflow, subject: subjectLater ? null : (subject ?? null) },
    },
  });
  if (later)
    p.steps.updateCollections.push({ type: 'UpdateCollection', data: { name: mc.name, changes: { workflow } } });
  if (subjectLater) p.steps.setSubjects.push(subjectStep(mc.name, subject));
}

/** An existing collection brought to the manifest's; its singleton flag and key type stay as they are. */
function updateCollection(
  p: Planning,
  mc: ManifestCollection,
  i: number,
  have: SnapshotCollection,
  want: CollectionDef,
): void {
  for (const fixed of ['singleton', 'primaryKeyType'] as const)
    if (have.def[fixed] !== want[fixed])
      p.errors.push(
        problem('VALIDATION_FAILED', `${fixed} of an existing collection cannot change`, ['collections', i, fixed]),
      );
  // A definition made before `versioning` existed has none: it is on.
  const changes = changedAttrs<CollectionDef>(
    COLLECTION_ATTRS,
    { ...have.def, versioning: isVersioned(have.def) },
    want,
  );
  if (changes.length === 0) {
    p.counts.collections.unchanged++;
    return;
  }
  p.op({ resource: 'collections', action: 'update', key: mc.name, risk: 'low', changes: changes.map(String) });
  const patch = Object.fromEntries(changes.filter((a) => a !== 'subject').map((a) => [a, want[a] ?? null]));
  if (Object.keys(patch).length)
    p.steps.updateCollections.push({ type: 'UpdateCollection', data: { name: mc.name, changes: patch } });
  if (changes.includes('subject'))
    (want.subject ? p.steps.setSubjects : p.steps.clearSubjects).push(subjectStep(mc.name, want.subject));
}

/** User collections in the deletion scope the manifest does not name: high risk when they hold items. */
function dropCollections(p: Planning): void {
  for (const name of p.scope)
    if (!p.wantCollections.has(name)) {
      p.dropCollections.add(name);
      const held = p.presence.collections.has(name);
      p.op({
        resource: 'collections',
        action: 'delete',
        key: name,
        risk: held ? 'high' : 'medium',
        ...(held ? { reason: 'the collection holds items' } : {}),
      });
      p.steps.deleteCollections.push({ type: 'DeleteCollection', data: { name } });
    }
}
