import { MANIFEST_VERSION, relationKey, type Manifest, type Mode } from './manifest.ts';
import { checkCollectionNames, checkCollectionReferences, planCollections } from './plan/collections.plan.ts';
import { checkFieldCollections, checkFieldNames, planFields } from './plan/fields.plan.ts';
import {
  deletionScope,
  duplicates,
  maxRisk,
  noCounts,
  orderedSteps,
  problem,
  startPlanning,
  type CurrentConfig,
  type Diff,
  type Plan,
  type Presence,
} from './plan/planning.ts';
import { checkRelationEnds, checkRelationReferences, planRelations } from './plan/relations.plan.ts';
import { planSettings } from './plan/settings.plan.ts';
import { checkWebhookReferences, planWebhooks } from './plan/webhooks.plan.ts';

export {
  canonical,
  RESOURCES,
  type Counts,
  type CurrentConfig,
  type Diff,
  type Operation,
  type Plan,
  type Presence,
  type Resource,
  type Risk,
} from './plan/planning.ts';
export { relationFromManifest } from './plan/relations.plan.ts';

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

/** A plan that changes nothing: the answer to a manifest with errors, with the operations it would have made. */
const refused = (errors: Plan['errors'], operations: Plan['operations'], diff: Diff): Plan => ({
  errors,
  operations,
  diff,
  steps: [],
  webhooks: { create: [], update: [], delete: [] },
  settings: [],
});

/**
 * `plan(current, manifest, mode)`: the operations that bring the site to the manifest, each with its risk (high:
 * dropping a collection or field that holds data, changing a field's type, widening a relation's `onDelete` to
 * `cascade`; medium: deleting an empty resource; low: the rest), the manifest's errors, the per-resource diff, and
 * the schema steps that carry it out. Pure: the same inputs give the same plan, and a manifest exported from a state
 * plans to nothing against it. Arrays a manifest leaves out are left alone; `merge` never deletes,
 * `replace-managed` deletes inside `managedScopes`, `replace-all` deletes whatever the manifest does not name.
 */
export function plan(current: CurrentConfig, manifest: Manifest, mode: Mode, presence: Presence): Plan {
  if (manifest.version !== MANIFEST_VERSION) {
    const message = `manifest version ${JSON.stringify(manifest.version)} is not supported; this service reads ${MANIFEST_VERSION}`;
    return refused([problem('UNSUPPORTED_MANIFEST_VERSION', message, ['version'])], [], { ...noCounts(), risk: 'low' });
  }
  const p = startPlanning(current, manifest, mode, presence);
  // Keys: each resource once.
  duplicates(manifest.collections, (c) => c.name, 'collections', p.errors);
  duplicates(manifest.fields, (f) => `${f.collection}.${f.field}`, 'fields', p.errors);
  duplicates(manifest.relations, relationKey, 'relations', p.errors);
  duplicates(manifest.webhooks, (w) => w.name, 'webhooks', p.errors);
  duplicates(manifest.settings, (s) => s.key, 'settings', p.errors);
  duplicates(manifest.managedScopes, (s) => s, 'managedScopes', p.errors);
  // Names the manifest may use, then references that must land on what the site will have.
  checkCollectionNames(p);
  checkFieldNames(p);
  checkRelationEnds(p);
  checkFieldCollections(p);
  checkCollectionReferences(p);
  checkRelationReferences(p);
  checkWebhookReferences(p);
  // Relations come after collections and fields: they are checked against what those two drop.
  planCollections(p);
  planFields(p);
  planRelations(p);
  const webhooks = planWebhooks(p);
  const settings = planSettings(p);
  const diff: Diff = { ...p.counts, risk: maxRisk(p.operations) };
  if (p.errors.length) return refused(p.errors, p.operations, diff);
  return { errors: p.errors, operations: p.operations, diff, steps: orderedSteps(p.steps), webhooks, settings };
}
