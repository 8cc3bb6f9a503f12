import type { AppDeps } from '../../../deps.ts';
import type { EventMetadata, NewEvent } from '../../../kernel/es/event.ts';
import { WrongExpectedVersion } from '../../../kernel/es/event-store.ts';
import {
  flowBudgetStream,
  type FlowBudgetCharged,
  type RunBudget,
} from '../../../contracts/flows/flow-budget.events.ts';
import type { FlowRunEvent, StepError } from '../../../contracts/flows/flow-run.events.ts';

/** The part of a budget a tree ran out of: runs in all, runs started by one run, steps, or bytes of outputs. */
export type BudgetKind = 'runs' | 'breadth' | 'steps' | 'bytes';

/** What a root's tree has spent so far, folded from its ledger; `version` is the ledger's. */
export interface BudgetSpent {
  runs: number;
  steps: number;
  bytes: number;
  /** Runs started by each run of the tree (the breadth), by parent run id. */
  children: Map<string, number>;
  /** The runs charged so far: a start tried again is not charged twice. */
  started: Set<string>;
  version: number;
}

/** The place of a run in its tree, as the runs it starts need it: its root and the root's budget. */
export interface TreePlace {
  runId: string;
  rootRunId: string;
  budget: RunBudget;
}

const VARIABLES = new Map<BudgetKind, string>([
  ['runs', 'SVC_FLOW_BUDGET_RUNS'],
  ['breadth', 'SVC_FLOW_BREADTH'],
  ['steps', 'SVC_FLOW_BUDGET_STEPS'],
  ['bytes', 'SVC_FLOW_BUDGET_BYTES'],
]);

/** A new root's budget, from the configuration. */
export const budgetOf = (c: AppDeps['config']): RunBudget => ({
  runs: c.SVC_FLOW_BUDGET_RUNS,
  steps: c.SVC_FLOW_BUDGET_STEPS,
  bytes: c.SVC_FLOW_BUDGET_BYTES,
  breadth: c.SVC_FLOW_BREADTH,
});

export const emptySpent = (): BudgetSpent => ({
  runs: 0,
  steps: 0,
  bytes: 0,
  children: new Map(),
  started: new Set(),
  version: 0,
});

/** Folds one charge into a copy the caller owns (a read copies once, then folds its events into it). */
function charge(s: BudgetSpent, d: FlowBudgetCharged['data']): void {
  s.runs += d.runs;
  s.steps += d.steps;
  s.bytes += d.bytes;
  if (d.runs > 0) {
    s.started.add(d.runId);
    if (d.parentRunId) s.children.set(d.parentRunId, (s.children.get(d.parentRunId) ?? 0) + d.runs);
  }
}

/** The step error of a run the budget stops: which part, its limit, and the root whose budget it is. */
export function budgetError(kind: BudgetKind, budget: RunBudget, rootRunId: string): StepError {
  const limit = budget[kind];
  const what: Record<BudgetKind, string> = {
    runs: `the runs started from root run ${rootRunId} reached their budget of ${limit}`,
    breadth: `a run starts at most ${limit} runs`,
    steps: `the runs started from root run ${rootRunId} recorded their budget of ${limit} steps`,
    bytes: `the runs started from root run ${rootRunId} recorded their budget of ${limit} bytes of output`,
  };
  return {
    code: 'BUDGET_EXCEEDED',
    message: `${what[kind]} (${VARIABLES.get(kind)})`,
    extensions: { budget: kind, limit, rootRunId },
  };
}

/** The part of the budget that forbids another step of the tree, or null (pure). */
export function stepRefusal(s: BudgetSpent, b: RunBudget): BudgetKind | null {
  if (s.steps >= b.steps) return 'steps';
  if (s.bytes >= b.bytes) return 'bytes';
  return null;
}

/** The part of the budget that forbids `parentRunId` another run, or null (pure). */
export function startRefusal(s: BudgetSpent, b: RunBudget, parentRunId: string): BudgetKind | null {
  if (s.runs >= b.runs) return 'runs';
  if ((s.children.get(parentRunId) ?? 0) >= b.breadth) return 'breadth';
  return null;
}

/** A root's spending, read from its ledger; given an earlier reading, only the charges after it are read. */
export async function readSpent(
  deps: Pick<AppDeps, 'store'>,
  siteId: string,
  rootRunId: string,
  after: BudgetSpent = emptySpent(),
): Promise<BudgetSpent> {
  const s = { ...after, children: new Map(after.children), started: new Set(after.started) };
  const stream = flowBudgetStream(siteId, rootRunId);
  for await (const e of deps.store.readStream<FlowBudgetCharged>(stream, { fromVersion: after.version + 1 })) {
    charge(s, e.data);
    s.version = e.streamVersion;
  }
  return s;
}

/** What a run's new events cost its tree: the steps they record, and the bytes of the outputs (JSON, UTF-8). */
export function stepCost(events: readonly FlowRunEvent[]): { steps: number; bytes: number } {
  let steps = 0;
  let bytes = 0;
  for (const e of events) {
    if (e.type !== 'FlowStepCompleted' && e.type !== 'FlowStepFailed') continue;
    steps++;
    if (e.type === 'FlowStepCompleted') bytes += Buffer.byteLength(JSON.stringify(e.data.output ?? null));
  }
  return { steps, bytes };
}

/** The ledger's record of steps a run recorded and the bytes of their outputs, appended with them ('any': counts add up). */
export function stepCharge(
  siteId: string,
  place: { runId: string; rootRunId: string },
  spent: { steps: number; bytes: number },
  metadata: EventMetadata,
) {
  const data: FlowBudgetCharged['data'] = {
    ...{ rootRunId: place.rootRunId, runId: place.runId, parentRunId: null, runs: 0 },
    ...{ steps: spent.steps, bytes: spent.bytes, at: metadata.occurredAt },
  };
  return {
    streamId: flowBudgetStream(siteId, place.rootRunId),
    events: [{ type: 'FlowBudgetCharged', data, metadata }] as NewEvent[],
    expectedVersion: 'any' as const,
  };
}

/** Conflicting starts of one tree read the ledger again; this many times at most before the step is tried later. */
const START_TRIES = 20;

/**
 * Starts a run of a tree (a `trigger` step's, or an event run a tree's write caused) if the root's budget allows it:
 * its first events and the ledger's charge in one append at the ledger's version, so two runs of the tree never both
 * take its last run. `started: false` when the run had been started before; `refused` names the part spent.
 */
export async function startInTree(
  deps: Pick<AppDeps, 'store'>,
  siteId: string,
  run: { streamId: string; runId: string; events: NewEvent[] },
  parent: TreePlace,
): Promise<{ started: boolean; refused: BudgetKind | null }> {
  let spent = emptySpent();
  for (let i = 0; i < START_TRIES; i++) {
    spent = await readSpent(deps, siteId, parent.rootRunId, spent);
    if (spent.started.has(run.runId)) return { started: false, refused: null };
    const refused = startRefusal(spent, parent.budget, parent.runId);
    if (refused) return { started: false, refused };
    const metadata = run.events[0]!.metadata;
    const data: FlowBudgetCharged['data'] = {
      ...{ rootRunId: parent.rootRunId, runId: run.runId, parentRunId: parent.runId },
      ...{ runs: 1, steps: 0, bytes: 0, at: metadata.occurredAt },
    };
    try {
      await deps.store.appendMany([
        { streamId: run.streamId, events: run.events, expectedVersion: 'no_stream' },
        {
          streamId: flowBudgetStream(siteId, parent.rootRunId),
          events: [{ type: 'FlowBudgetCharged', data, metadata }],
          expectedVersion: spent.version,
        },
      ]);
      return { started: true, refused: null };
    } catch (err) {
      if (!(err instanceof WrongExpectedVersion)) throw err;
      if ((await deps.store.streamVersion(run.streamId)) !== null) return { started: false, refused: null };
    }
  }
  throw new Error(`the budget of root run ${parent.rootRunId} is contended; the start is tried again`);
}
