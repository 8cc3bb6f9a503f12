import { defineError } from '../../kernel/http/errors.ts';

/** The preset does not exist on the site, or belongs to another user the caller may not manage. */
export const PresetNotFound = defineError<{ presetId: string }>(
  'NOT_FOUND',
  'not_found',
  (d) => `preset ${d.presetId} not found`,
);

/** A scope has one default view per collection. */
export const DefaultViewExists = defineError<{ collection: string; scope: string }>(
  'CONFLICT',
  'conflict',
  (d) => `the ${d.scope} scope already has a default view of ${d.collection}`,
  () => ({ path: ['bookmark'], extensions: { reason: 'default_exists' } }),
);

/** Bookmark names are unique per scope and collection. */
export const BookmarkNameTaken = defineError<{ collection: string; bookmark: string }>(
  'CONFLICT',
  'conflict',
  (d) => `a bookmark named ${JSON.stringify(d.bookmark)} of ${d.collection} already exists in this scope`,
  () => ({ path: ['bookmark'], extensions: { reason: 'bookmark_taken' } }),
);

/** A create names a preset id the site holds already (a generated id met again). */
export const PresetExists = defineError<{ presetId: string }>(
  'CONFLICT',
  'conflict',
  (d) => `preset ${d.presetId} already exists`,
);

/** A site keeps at most MAX_PRESETS presets: one stream holds them all. */
export const TooManyPresets = defineError<{ max: number; per?: 'user' }>(
  'CONFLICT',
  'conflict',
  (d) =>
    d.per === 'user' ? `a user has at most ${d.max} presets of their own` : `a site has at most ${d.max} presets`,
  (d) => ({ extensions: { reason: 'limit', max: d.max, per: d.per ?? 'site' } }),
);

/** A preset's body that does not fit the site: unknown collection, field, role or user, a bad filter, a size cap. */
export const InvalidPreset = defineError<{ message: string; path: string[]; reason: string }>(
  'VALIDATION_FAILED',
  'invalid',
  (d) => d.message,
  (d) => ({ path: d.path, extensions: { reason: d.reason } }),
);

/** Role and global presets, and other users' presets, are managed by site admins. */
export const PresetScopeForbidden = defineError<{ scope: string }>(
  'PERMISSION_DENIED',
  'forbidden',
  (d) =>
    d.scope === 'user' ? "only site admins manage other users' presets" : `only site admins manage ${d.scope} presets`,
  () => ({ extensions: { reason: 'preset_scope' } }),
);
