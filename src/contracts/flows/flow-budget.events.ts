import type { DomainEvent } from '../../kernel/es/event.ts';

/**
 * The budget of a root run (one started by a person, a webhook, the schedule or an event no flow caused), fixed when
 * it starts and carried to every run it causes: runs it may cause in all, steps and bytes of step outputs the whole
 * tree may record, and runs one run of the tree may start.
 */
export interface RunBudget {
  runs: number;
  steps: number;
  bytes: number;
  breadth: number;
}

/**
 * A root's budget was spent: a run of its tree started (`runs: 1`, started by `parentRunId`), or a run of the tree
 * recorded steps (`steps`, with the `bytes` of their outputs). Appended with the run's start or the step's record, in
 * the same append, so the ledger never misses what the log holds.
 */
export type FlowBudgetCharged = DomainEvent<
  'FlowBudgetCharged',
  {
    rootRunId: string;
    runId: string;
    parentRunId: string | null;
    runs: number;
    steps: number;
    bytes: number;
    at: string;
  }
>;

export const FLOW_BUDGET_EVENT_TYPES = ['FlowBudgetCharged'] as const satisfies readonly FlowBudgetCharged['type'][];

/** One ledger per root run: what its tree has spent. */
export const flowBudgetStream = (siteId: string, rootRunId: string) => `${siteId}/flow-budget/${rootRunId}`;
