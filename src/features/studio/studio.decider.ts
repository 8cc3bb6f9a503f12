import { assertNever, type Decider } from '../../kernel/es/decider.ts';
import { isValidAdminPath } from './admin-path.rules.ts';
import { InvalidAdminPath, SetupNotComplete } from './studio.errors.ts';
import type { StudioEvent } from '../../contracts/studio/studio.events.ts';

/** The path the last change chose; null until the first change (setup's path holds until then). */
export type AdminPathState = { path: string | null };

/** Move the studio to `to`; `setupPath` is the path setup chose (null before setup), which holds until a change. */
export type ChangeAdminPath = { type: 'ChangeAdminPath'; data: { setupPath: string | null; to: string; now: string } };
export type StudioCommand = ChangeAdminPath;

export const studioDecider: Decider<AdminPathState, StudioCommand, StudioEvent> = {
  initialState: () => ({ path: null }),
  evolve: (_s, e) => {
    switch (e.type) {
      case 'AdminPathChanged':
        return { path: e.data.to };
      default:
        return assertNever(e.type);
    }
  },
  decide: (cmd, s) => {
    switch (cmd.type) {
      case 'ChangeAdminPath': {
        const from = s.path ?? cmd.data.setupPath;
        if (from === null) throw new SetupNotComplete();
        if (!isValidAdminPath(cmd.data.to)) throw new InvalidAdminPath();
        // Asking for the path it has already is done: nothing to record.
        if (cmd.data.to === from) return [];
        return [{ type: 'AdminPathChanged', data: { from, to: cmd.data.to, at: cmd.data.now } }];
      }
      default:
        return assertNever(cmd.type);
    }
  },
};
