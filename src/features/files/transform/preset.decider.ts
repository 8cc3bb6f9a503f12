import { records, type Stamp } from '../stamped-records.ts';
import { assertNever, type Decider } from '../../../kernel/es/decider.ts';
import type { TransformPreset, TransformPresetEvent } from '../../../contracts/files/preset.events.ts';
import { PresetKeyTaken, PresetNotFound } from './transform.errors.ts';

export type PresetRecord = TransformPreset & Stamp;

/** The site's presets by id (a Map: ids and keys come from requests). */
export type PresetsState = ReadonlyMap<string, PresetRecord>;

export type PresetCommand =
  | { type: 'CreatePreset'; data: TransformPreset & { by: string; now: string } }
  | { type: 'UpdatePreset'; data: { id: string; key?: string; name?: string; dsl?: string; by: string; now: string } }
  | { type: 'DeletePreset'; data: { id: string; by: string; now: string } };

const keyTaken = (s: PresetsState, key: string, except?: string) =>
  [...s.values()].some((p) => p.key === key && p.id !== except);

export const presetDecider: Decider<PresetsState, PresetCommand, TransformPresetEvent> = {
  initialState: () => new Map(),
  evolve(s, e) {
    switch (e.type) {
      case 'TransformPresetCreated': {
        const { by, at, ...record } = e.data;
        return records.created(s, record, by, at);
      }
      case 'TransformPresetUpdated': {
        const { id, by, at, ...changes } = e.data;
        return records.changed(s, id, changes, by, at);
      }
      case 'TransformPresetDeleted':
        return records.removed(s, e.data.id);
      default:
        return assertNever(e);
    }
  },
  decide(cmd, s) {
    switch (cmd.type) {
      case 'CreatePreset': {
        const { now, ...data } = cmd.data;
        if (keyTaken(s, data.key)) throw new PresetKeyTaken({ key: data.key });
        return [{ type: 'TransformPresetCreated', data: { ...data, at: now } }];
      }
      case 'UpdatePreset': {
        const { now, ...data } = cmd.data;
        const old = s.get(data.id);
        if (!old) throw new PresetNotFound({ id: data.id });
        if (data.key !== undefined && keyTaken(s, data.key, data.id)) throw new PresetKeyTaken({ key: data.key });
        return [{ type: 'TransformPresetUpdated', data: { ...data, at: now } }];
      }
      case 'DeletePreset':
        if (!s.has(cmd.data.id)) throw new PresetNotFound({ id: cmd.data.id });
        return [{ type: 'TransformPresetDeleted', data: { id: cmd.data.id, by: cmd.data.by, at: cmd.data.now } }];
      default:
        return assertNever(cmd);
    }
  },
};
