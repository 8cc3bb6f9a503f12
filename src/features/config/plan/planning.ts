import type { ErrorObject } from '../../../kernel/http/errors.ts';
import type { PlanStep } from '../../schema/index.ts';
import { fieldWithDefaults, type FieldDef } from '../../../contracts/schema/schema.types.ts';
import type { SchemaSnapshot, SnapshotCollection } from '../../../contracts/schema/schema.snapshot.ts';
import type { Manifest, ManifestCollection, ManifestWebhook, Mode, SettingKey } from '../manifest.ts';

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
/** The highest risk among operations; low when there are none. */
export const maxRisk = (ops: readonly Operation[]): Risk =>
  ops.reduce<Risk>((r, o) => (RANK.get(o.risk)! > RANK.get(r)! ? o.risk : r), 'low');

/** Every resource at zero, in the order of RESOURCES. */
export const noCounts = (): Record<Resource, Counts> =>
  Object.fromEntries(RESOURCES.map((r) => [r, { create: 0, update: 0, unchanged: 0, delete: 0 }])) as Record<
    Resource,
    Counts
  >;

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
/** Two configuration values are the same: identical, or objects with the same canonical JSON. */
export const same = (a: unknown, b: unknown) =>
  a === b ||
  (typeof a === 'object' && a !== null && typeof b === 'object' && b !== null && canonical(a) === canonical(b));

/** The attributes whose values differ between what is and what is wanted (a missing value counts as null). */
export function changedAttrs<T extends object>(attrs: readonly (keyof T)[], now: T, want: T): (keyof T)[] {
  return attrs.filter((a) => !same(now[a] ?? null, want[a] ?? null));
}

type ErrorCode = ErrorObject['code'];
/** A manifest error at a path of the manifest. */
export const problem = (code: ErrorCode, message: string, path: (string | number)[]): ErrorObject => ({
  code,
  message,
  path: path.map(String),
  extensions: {},
});

/** Names that appear twice in a list: DUPLICATE_KEY at each repeat. */
export function duplicates<T>(list: readonly T[] | undefined, key: (x: T) => string, at: string, out: ErrorObject[]) {
  const seen = new Set<string>();
  list?.forEach((x, i) => {
    const k = key(x);
    if (seen.has(k)) out.push(problem('DUPLICATE_KEY', `${at} ${k} appears more than once`, [at, i]));
    seen.add(k);
  });
}

/** The user collections whose absent parts a mode deletes. */
export function deletionScope(current: CurrentConfig, manifest: Manifest, mode: Mode): Set<string> {
  if (mode === 'merge') return new Set();
  const user = current.schema.collections.filter((c) => !c.system).map((c) => c.def.name);
  if (mode === 'replace-all') return new Set(user);
  const managed = new Set(manifest.managedScopes ?? []);
  return new Set(user.filter((n) => managed.has(n)));
}

/** The schema commands a plan gathers, by kind; `orderedSteps` joins them. */
export interface Steps {
  createCollections: PlanStep[];
  createFields: PlanStep[];
  setSubjects: PlanStep[];
  createPersonalFields: PlanStep[];
  updateFields: PlanStep[];
  updateCollections: PlanStep[];
  deleteRelations: PlanStep[];
  createRelations: PlanStep[];
  updateRelations: PlanStep[];
  deleteFields: PlanStep[];
  clearSubjects: PlanStep[];
  deleteCollections: PlanStep[];
}

/** The steps in an order the schema's rules accept. */
export const orderedSteps = (steps: Steps): PlanStep[] => [
  ...steps.createCollections,
  ...steps.deleteRelations,
  ...steps.createFields,
  // A personal field needs its collection's subject, which may name a field created just before.
  ...steps.setSubjects,
  ...steps.createPersonalFields,
  ...steps.updateFields,
  ...steps.updateCollections,
  ...steps.createRelations,
  ...steps.updateRelations,
  ...steps.deleteFields,
  // A subject goes once no field is personal any more.
  ...steps.clearSubjects,
  ...steps.deleteCollections,
];

/** A manifest field with its defaults, and its index in the manifest (where its errors point). */
export type WantedField = { f: FieldDef; i: number };

/** One plan in the making: its inputs, what the planners found so far, and the site after the plan as they see it. */
export interface Planning {
  current: CurrentConfig;
  manifest: Manifest;
  mode: Mode;
  presence: Presence;
  errors: ErrorObject[];
  operations: Operation[];
  counts: Record<Resource, Counts>;
  steps: Steps;
  /** The site's collections, by name. */
  now: Map<string, SnapshotCollection>;
  /** Names of deleted collections: none of them can be created again. */
  deleted: Set<string>;
  /** The user collections whose absent parts the mode deletes. */
  scope: Set<string>;
  wantCollections: Map<string, ManifestCollection>;
  /** The collections the site will have: what references must land on. */
  willHave: Set<string>;
  /** The manifest's fields by collection and name. */
  wantFields: Map<string, Map<string, WantedField>>;
  /** The collections the plan drops, known once the collections are planned. */
  dropCollections: Set<string>;
  /** Records an operation and counts it. */
  op: (o: Operation) => void;
  /** The fields a collection will have. */
  fieldsAfter: (collection: string) => Set<string>;
}

const noSteps = (): Steps => ({
  createCollections: [],
  createFields: [],
  setSubjects: [],
  createPersonalFields: [],
  updateFields: [],
  updateCollections: [],
  deleteRelations: [],
  createRelations: [],
  updateRelations: [],
  deleteFields: [],
  clearSubjects: [],
  deleteCollections: [],
});

/** The manifest's fields by collection and name, each with its defaults. */
function wantedFields(manifest: Manifest): Map<string, Map<string, WantedField>> {
  const wantFields = new Map<string, Map<string, WantedField>>();
  manifest.fields?.forEach((mf, i) => {
    const { collection, ...def } = mf;
    let m = wantFields.get(collection);
    if (!m) wantFields.set(collection, (m = new Map()));
    m.set(mf.field, { f: fieldWithDefaults(def), i });
  });
  return wantFields;
}

/** A plan's start: no operation, no step, and the views of the site the planners share. */
export function startPlanning(current: CurrentConfig, manifest: Manifest, mode: Mode, presence: Presence): Planning {
  const operations: Operation[] = [];
  const counts = noCounts();
  const now = new Map(current.schema.collections.map((c) => [c.def.name, c]));
  const scope = deletionScope(current, manifest, mode);
  const wantCollections = new Map((manifest.collections ?? []).map((c) => [c.name, c]));
  const willHave = new Set<string>();
  for (const c of current.schema.collections)
    if (c.system || !scope.has(c.def.name) || !manifest.collections || wantCollections.has(c.def.name))
      willHave.add(c.def.name);
  for (const name of wantCollections.keys()) willHave.add(name);
  const wantFields = wantedFields(manifest);
  return {
    current,
    manifest,
    mode,
    presence,
    errors: [],
    operations,
    counts,
    steps: noSteps(),
    now,
    deleted: new Set(current.schema.deleted),
    scope,
    wantCollections,
    willHave,
    wantFields,
    dropCollections: new Set(),
    op: (o) => {
      operations.push(o);
      counts[o.resource][o.action]++;
    },
    fieldsAfter: (collection) => {
      const out = new Set<string>();
      const existing = now.get(collection);
      const keepAll = !manifest.fields || !scope.has(collection);
      if (existing && keepAll) for (const f of existing.fields) out.add(f.field);
      for (const name of wantFields.get(collection)?.keys() ?? []) out.add(name);
      return out;
    },
  };
}
