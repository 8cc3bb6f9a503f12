import { assertNever, type Decider } from '../../kernel/es/decider.ts';
import type { RetentionEvent, RetentionRun } from '../../contracts/retention/retention.events.ts';

export interface RetentionState {
  runs: number;
  lastRunAt: string | null;
}

/** Record a run that pruned what it counts: always accepted, the pruning already happened. */
export type RecordRetentionRun = { type: 'RecordRetentionRun'; data: RetentionRun['data'] };
export type RetentionCommand = RecordRetentionRun;

export const retentionDecider: Decider<RetentionState, RetentionCommand, RetentionEvent> = {
  initialState: () => ({ runs: 0, lastRunAt: null }),
  evolve: (s, e) => {
    switch (e.type) {
      case 'RetentionRun':
        return { runs: s.runs + 1, lastRunAt: e.data.at };
      default:
        return assertNever(e.type);
    }
  },
  decide: (cmd) => {
    switch (cmd.type) {
      case 'RecordRetentionRun':
        return [{ type: 'RetentionRun', data: cmd.data }];
      default:
        return assertNever(cmd.type);
    }
  },
};
