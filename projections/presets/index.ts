/**
 * The public surface of the presets read model: a site's view presets and bookmarks as the schema left them.
 */
export { presetsProjector } from './presets.projector.ts';
export {
  effectivePreset,
  findPreset,
  listPresets,
  visibleBookmarks,
  type PresetListFilter,
  type PresetRecord,
  type PresetViewer,
} from './presets.queries.ts';
