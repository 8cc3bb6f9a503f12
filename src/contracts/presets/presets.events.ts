import type { DomainEvent } from '../../kernel/es/event.ts';

/** What a view shows of a collection: the list parameters a client applies when it opens the view. */
export interface PresetQuery {
  /** Fields and dotted paths (`*`, `author.name`); null: the client's default. */
  fields: string[] | null;
  /** A filter of the item list language (spec "Filter operators"). */
  filter: Record<string, unknown> | null;
  /** Field names, `-` for descending. */
  sort: string[] | null;
  limit: number | null;
  search: string | null;
}

/**
 * A view preset as its owner set it. Ownership decides the scope: `userId` set → user scope, `roleId` set → role
 * scope, neither → global. `bookmark` names a saved view; null is the default view of its scope and collection.
 */
export interface PresetDefinition {
  collection: string;
  userId: string | null;
  roleId: string | null;
  bookmark: string | null;
  layout: string | null;
  layoutOptions: Record<string, unknown> | null;
  query: PresetQuery;
}

/** The scopes a preset belongs to, from the narrowest to the widest. */
export const PRESET_SCOPES = ['user', 'role', 'global'] as const;
export type PresetScope = (typeof PRESET_SCOPES)[number];

/** A preset's scope, derived from its ownership. */
export const scopeOf = (p: Pick<PresetDefinition, 'userId' | 'roleId'>): PresetScope =>
  p.userId !== null ? 'user' : p.roleId !== null ? 'role' : 'global';

/** A preset was saved (its id made by the server). */
export type PresetCreated = DomainEvent<
  'PresetCreated',
  PresetDefinition & { presetId: string; at: string; by: string }
>;
/** Some settings of a preset changed; only the changed keys are recorded (`query` always whole). */
export type PresetUpdated = DomainEvent<
  'PresetUpdated',
  { presetId: string; changes: Partial<PresetDefinition>; at: string; by: string }
>;
/** A preset was removed: a default view removed lets the inherited one show through. */
export type PresetDeleted = DomainEvent<'PresetDeleted', { presetId: string; at: string; by: string }>;

export type PresetEvent = PresetCreated | PresetUpdated | PresetDeleted;
export const PRESET_EVENT_TYPES = ['PresetCreated', 'PresetUpdated', 'PresetDeleted'] as const;

/** Every preset of a site on one stream: one decision sees every scope's default and bookmark names. */
export const presetsStream = (siteId: string) => `${siteId}/presets/${siteId}`;
