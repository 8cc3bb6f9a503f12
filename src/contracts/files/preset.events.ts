import type { DomainEvent } from '../../kernel/es/event.ts';

/** A saved transform of a site: its key (`preset=<key>`), a name and the DSL (`w=800,h=600,fit=cover`). */
export interface TransformPreset {
  id: string;
  key: string;
  name: string;
  dsl: string;
}

export type TransformPresetCreated = DomainEvent<
  'TransformPresetCreated',
  TransformPreset & { by: string; at: string }
>;
export type TransformPresetUpdated = DomainEvent<
  'TransformPresetUpdated',
  { id: string; key?: string; name?: string; dsl?: string; by: string; at: string }
>;
export type TransformPresetDeleted = DomainEvent<'TransformPresetDeleted', { id: string; by: string; at: string }>;

export type TransformPresetEvent = TransformPresetCreated | TransformPresetUpdated | TransformPresetDeleted;

/** All presets of a site share one stream: a key is unique on it without a read model. */
export const transformPresetsStream = (siteId: string) => `${siteId}/transform-presets/${siteId}`;
