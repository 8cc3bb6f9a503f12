import { assertNever, type Decider } from '../../kernel/es/decider.ts';
import type { ItemValues } from '../../contracts/items/item.events.ts';
import { VersionExists, VersionNotFound } from './item.errors.ts';
import { type At, type ItemVersionEvent } from '../../contracts/items/item-versions.events.ts';

export {
  ITEM_VERSION_EVENT_TYPES,
  itemVersionsStream,
  type ItemVersionEvent,
} from '../../contracts/items/item-versions.events.ts';

export type ItemVersionCommand =
  | { type: 'CreateVersion'; data: At & { name: string; data: ItemValues; base: number } }
  | { type: 'UpdateVersion'; data: At & { name?: string; changes?: ItemValues } }
  | { type: 'DeleteVersion'; data: At };

export type ItemVersionsState = Record<string, { name: string; data: ItemValues; base: number }>;

export const itemVersionsDecider: Decider<ItemVersionsState, ItemVersionCommand, ItemVersionEvent> = {
  initialState: () => ({}),
  evolve: (s, e) => {
    switch (e.type) {
      case 'ItemVersionCreated':
        return { ...s, [e.data.key]: { name: e.data.name, data: e.data.data, base: e.data.base } };
      case 'ItemVersionUpdated': {
        const v = s[e.data.key];
        if (!v) return s;
        return {
          ...s,
          [e.data.key]: { ...v, name: e.data.name ?? v.name, data: { ...v.data, ...(e.data.changes ?? {}) } },
        };
      }
      case 'ItemVersionDeleted': {
        const { [e.data.key]: _gone, ...rest } = s;
        return rest;
      }
      default:
        return assertNever(e);
    }
  },
  decide: (cmd, s) => {
    const { key } = cmd.data;
    switch (cmd.type) {
      case 'CreateVersion':
        if (Object.hasOwn(s, key)) throw new VersionExists({ key });
        return [{ type: 'ItemVersionCreated', data: cmd.data }];
      case 'UpdateVersion':
        if (!Object.hasOwn(s, key)) throw new VersionNotFound({ key });
        return [{ type: 'ItemVersionUpdated', data: cmd.data }];
      case 'DeleteVersion':
        if (!Object.hasOwn(s, key)) throw new VersionNotFound({ key });
        return [{ type: 'ItemVersionDeleted', data: cmd.data }];
      default:
        return assertNever(cmd);
    }
  },
};
