import { z } from 'zod';
import { isInheritedName } from '../../kernel/safe/keys.ts';
import { CreateCollectionBody, checkFieldAttributes, fieldShape } from '../../contracts/schema/schema.records.ts';
import {
  isVersioned,
  NAME_PATTERN,
  ON_DELETE,
  RELATION_KINDS,
  type CollectionDef,
  type FieldDef,
  type RelationDef,
} from '../../contracts/schema/schema.types.ts';
import { WebhookConfigSchema, type WebhookConfig } from '../webhooks/index.ts';

export const MANIFEST_VERSION = 'svc.config@v1';
export const MODES = ['merge', 'replace-managed', 'replace-all'] as const;
export type Mode = (typeof MODES)[number];

/** Bounds of one manifest: a schema larger than this is refused before it is planned. */
export const LIMITS = {
  collections: 1_000,
  fieldsPerCollection: 500,
  fields: 20_000,
  relations: 2_000,
  webhooks: 200,
} as const;

/** The site settings a manifest carries (none of them secret). */
export const SETTING_KEYS = ['default_save_action', 'upload_policy', 'public_registration'] as const;
export type SettingKey = (typeof SETTING_KEYS)[number];

/** A collection or field name. */
export const NAME = z
  .string()
  .regex(NAME_PATTERN, 'names are 1–63 characters: a-z, 0-9 and _, starting with a letter')
  .refine((n) => !isInheritedName(n), 'names of object prototype members (constructor, …) are reserved');

/**
 * A collection in a manifest: its definition (`label` is its display name) and `versioning`, its named-version
 * (draft) switch. History is not switched by it: every change is an event either way.
 */
const ManifestCollection = CreateCollectionBody.omit({ displayName: true })
  .extend({ label: z.string().max(500).nullable().optional(), versioning: z.boolean() })
  .strict();
const ManifestField = z
  .object({ collection: NAME, field: NAME, ...fieldShape })
  .strict()
  .superRefine(checkFieldAttributes);
const ManifestRelation = z
  .object({
    kind: z.enum(RELATION_KINDS),
    collection: NAME,
    field: NAME,
    target: NAME.nullable().optional(),
    junctionCollection: NAME.nullable().optional(),
    targetField: NAME.nullable().optional(),
    junctionField: NAME.nullable().optional(),
    onDelete: z.enum(ON_DELETE).default('set null'),
  })
  .strict();
/** A webhook as configuration: the webhooks slice's own rules (no id, no secret). */
const ManifestWebhook = WebhookConfigSchema;
const ManifestSetting = z.object({ key: z.enum(SETTING_KEYS), value: z.unknown() }).strict();

/** The configuration manifest (spec "Configuration manifest"); arrays left out are not managed by this manifest. */
export const Manifest = z
  .object({
    version: z.string().max(100),
    exportedAt: z.string().max(100).optional(),
    collections: z.array(ManifestCollection).max(LIMITS.collections).optional(),
    fields: z.array(ManifestField).max(LIMITS.fields).optional(),
    relations: z.array(ManifestRelation).max(LIMITS.relations).optional(),
    webhooks: z.array(ManifestWebhook).max(LIMITS.webhooks).optional(),
    settings: z
      .array(ManifestSetting)
      .max(SETTING_KEYS.length * 4)
      .optional(),
    managedScopes: z.array(NAME).max(LIMITS.collections).optional(),
  })
  .strict()
  .meta({ id: 'ConfigManifest' });
export type Manifest = z.infer<typeof Manifest>;
export type ManifestCollection = z.infer<typeof ManifestCollection>;
export type ManifestRelation = z.infer<typeof ManifestRelation>;
export type ManifestWebhook = WebhookConfig;

/** The manifest form of a collection definition. */
export function collectionToManifest(def: CollectionDef): ManifestCollection {
  return {
    name: def.name,
    label: def.displayName,
    versioning: isVersioned(def),
    icon: def.icon,
    note: def.note,
    singleton: def.singleton,
    status_field: def.status_field,
    sort_field: def.sort_field,
    primaryKeyType: def.primaryKeyType,
    workflow: def.workflow ?? null,
    subject: def.subject ?? null,
  };
}

/** A manifest collection as a definition, every attribute at its value or default. */
export function collectionFromManifest(c: ManifestCollection): CollectionDef {
  return {
    name: c.name,
    displayName: c.label ?? null,
    icon: c.icon ?? null,
    note: c.note ?? null,
    singleton: c.singleton,
    status_field: c.status_field ?? null,
    sort_field: c.sort_field ?? null,
    primaryKeyType: c.primaryKeyType,
    workflow: c.workflow ?? null,
    subject: c.subject ?? null,
    versioning: c.versioning,
  };
}

/** The manifest form of a field: every attribute written out, so a re-import changes nothing. */
export const fieldToManifest = (collection: string, f: FieldDef) => ({
  collection,
  field: f.field,
  type: f.type,
  interface: f.interface,
  choices: f.choices,
  display: f.display,
  options: f.options,
  required: f.required,
  nullable: f.nullable,
  readonly: f.readonly,
  encrypted: f.encrypted,
  unique: f.unique,
  sort: f.sort,
  default: f.default,
  personal: f.personal === true,
  erasedValue: f.erasedValue ?? null,
  searchable: f.searchable ?? null,
});

/** The manifest form of a relation: identified by its carrying field, not by a site's id. */
export const relationToManifest = (r: RelationDef): ManifestRelation => ({
  kind: r.kind,
  collection: r.collection,
  field: r.field,
  target: r.target,
  junctionCollection: r.junctionCollection,
  targetField: r.targetField,
  junctionField: r.junctionField,
  onDelete: r.onDelete,
});

/** A relation's identity across sites: the field that carries it (a field carries at most one relation). */
export const relationKey = (r: { collection: string; field: string }) => `${r.collection}.${r.field}`;

/** Relations in a manifest's order: by the field that carries them. */
export const byRelationKey = (a: { collection: string; field: string }, b: { collection: string; field: string }) =>
  relationKey(a) < relationKey(b) ? -1 : relationKey(a) > relationKey(b) ? 1 : 0;
