import { assertNever, type Decider } from '../../kernel/es/decider.ts';
import { SetupDone, SetupInProgress, SetupNotStarted } from './setup.errors.ts';
import type { SetupEvent, SetupStarted } from '../../contracts/setup/setup.events.ts';

export type SetupState = { phase: 'new' } | { phase: 'started' | 'completed'; started: SetupStarted['data'] };

/** Claim the first-run setup. */
export type StartSetup = { type: 'StartSetup'; data: Omit<SetupStarted['data'], 'at'> & { now: string } };
/** Mark setup finished once the user and site exist. */
export type CompleteSetup = { type: 'CompleteSetup'; data: { now: string } };
export type SetupCommand = StartSetup | CompleteSetup;

export const setupDecider: Decider<SetupState, SetupCommand, SetupEvent> = {
  initialState: () => ({ phase: 'new' }),
  evolve: (s, e) => {
    switch (e.type) {
      case 'SetupStarted':
        return { phase: 'started', started: e.data };
      case 'SetupCompleted':
        return s.phase === 'new' ? s : { phase: 'completed', started: s.started };
      default:
        return assertNever(e);
    }
  },
  decide: (cmd, s) => {
    switch (cmd.type) {
      case 'StartSetup': {
        // After setup the endpoint answers like any unknown route.
        if (s.phase === 'completed') throw new SetupDone();
        if (s.phase === 'started') throw new SetupInProgress();
        const { now, ...data } = cmd.data;
        return [{ type: 'SetupStarted', data: { ...data, at: now } }];
      }
      case 'CompleteSetup':
        if (s.phase === 'new') throw new SetupNotStarted();
        return s.phase === 'completed' ? [] : [{ type: 'SetupCompleted', data: { at: cmd.data.now } }];
      default:
        return assertNever(cmd);
    }
  },
};
