import type { DomainEvent } from '../../kernel/es/event.ts';
import type {
  CollectionChanges,
  CollectionDef,
  FieldChanges,
  FieldDef,
  FieldType,
  RelationChanges,
  RelationDef,
} from './schema.types.ts';

/** A collection was added to the site's schema. */
export type CollectionCreated = DomainEvent<'CollectionCreated', { collection: CollectionDef; at: string }>;
/** A collection's display settings changed. */
export type CollectionUpdated = DomainEvent<
  'CollectionUpdated',
  { name: string; changes: CollectionChanges; at: string }
>;
/** A collection was soft-deleted: hidden from the schema, its name kept, its data kept. */
export type CollectionDeleted = DomainEvent<'CollectionDeleted', { name: string; at: string }>;
/** A field was added to a collection. */
export type FieldCreated = DomainEvent<'FieldCreated', { collection: string; field: FieldDef; at: string }>;
/** A field's configuration changed (never its type: that is a new field). */
export type FieldUpdated = DomainEvent<
  'FieldUpdated',
  { collection: string; field: string; changes: FieldChanges; at: string }
>;
/** A field's value type changed to one its stored values already satisfy (`convertible`): they are kept as they are. */
export type FieldTypeChanged = DomainEvent<
  'FieldTypeChanged',
  {
    collection: string;
    field: string;
    from: FieldType;
    to: FieldType;
    choices: string[] | null;
    unique: boolean;
    at: string;
  }
>;
/** A field was removed from a collection. */
export type FieldDeleted = DomainEvent<'FieldDeleted', { collection: string; field: string; at: string }>;
/** A relation between collections was declared. */
export type RelationCreated = DomainEvent<'RelationCreated', { relation: RelationDef; at: string }>;
/** A relation's delete behaviour changed. */
export type RelationUpdated = DomainEvent<'RelationUpdated', { id: string; changes: RelationChanges; at: string }>;
/** A relation was removed. */
export type RelationDeleted = DomainEvent<'RelationDeleted', { id: string; at: string }>;
/** The spec's schema.changed signal: appended with every schema change, for caches and type generation. */
export type SchemaChanged = DomainEvent<
  'SchemaChanged',
  { change: string; collection: string | null; at: string; summary?: PlanSummary }
>;

/** What one applied plan (config import, a collection's schema) did, by resource, in the `SchemaChanged` it ends with. */
export interface PlanSummary {
  source: string;
  mode: string;
  risk: 'low' | 'medium' | 'high';
  created: number;
  updated: number;
  deleted: number;
  operations: { resource: string; action: 'create' | 'update' | 'delete'; key: string; risk: string }[];
}

export type SchemaEvent =
  | CollectionCreated
  | CollectionUpdated
  | CollectionDeleted
  | FieldCreated
  | FieldUpdated
  | FieldTypeChanged
  | FieldDeleted
  | RelationCreated
  | RelationUpdated
  | RelationDeleted
  | SchemaChanged;

export const SCHEMA_EVENT_TYPES = [
  'CollectionCreated',
  'CollectionUpdated',
  'CollectionDeleted',
  'FieldCreated',
  'FieldUpdated',
  'FieldTypeChanged',
  'FieldDeleted',
  'RelationCreated',
  'RelationUpdated',
  'RelationDeleted',
] as const;

/** One stream holds a site's whole schema, so cross-collection rules are checked in one decision. */
export const schemaStream = (siteId: string) => `${siteId}/schema/${siteId}`;
