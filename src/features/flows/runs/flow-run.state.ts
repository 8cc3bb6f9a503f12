import { entryNodes, successor } from '../flow-graph.ts';
import type { EdgeKind, FlowGraph, FlowNode } from '../../../contracts/flows/flow.events.ts';
import type { FlowRunEvent, RunStatus, RunTrigger, StepError } from '../../../contracts/flows/flow-run.events.ts';
import type { RunBudget } from '../../../contracts/flows/flow-budget.events.ts';

/** Bounds of one run (README "Flows"): steps recorded, tries of a step, a step's time, a run's whole time. */
export const RUN_LIMITS = {
  /** Completed steps of one run; an acyclic graph has at most 500 nodes, so this only stops a runaway retry chain. */
  steps: 1000,
  /** One step's operation, whatever it does; `request` has its own (shorter) timeout inside this one. */
  stepMs: 60_000,
  /** From start to end, sleeping included (the longest sleep is 30 days). */
  runMs: 31 * 24 * 3600_000,
} as const;

/** A run as its stream folds it: what the executor needs to choose the next step. */
export interface RunState {
  status: RunStatus | 'absent';
  runId: string;
  flowId: string;
  graph: FlowGraph;
  runAs: string;
  trigger: RunTrigger;
  input: unknown;
  depth: number;
  /** The root run whose budget the run spends (its own id for a root), and that budget (null on older runs). */
  rootRunId: string;
  budget: RunBudget | null;
  startedAt: string;
  /** The node to run next (null: the run has nowhere left to go). */
  current: string | null;
  /** Each step's output by node id (a failed step's is `{ error }`), and the last one: the data chain. */
  outputs: Map<string, unknown>;
  last: unknown;
  /** Tries of the current node so far, and when the next may start. */
  attempts: number;
  retryAt: string | null;
  sleepUntil: string | null;
  /** A step failed for good with no reject edge: the run fails with this. */
  failure: { nodeId: string; error: StepError } | null;
  steps: number;
}

export const initialRunState = (): RunState => ({
  status: 'absent',
  runId: '',
  flowId: '',
  graph: { nodes: [], edges: [] },
  runAs: '',
  trigger: 'manual',
  input: null,
  depth: 0,
  rootRunId: '',
  budget: null,
  startedAt: '',
  current: null,
  outputs: new Map(),
  last: null,
  attempts: 0,
  retryAt: null,
  sleepUntil: null,
  failure: null,
  steps: 0,
});

const leave = (s: RunState, nodeId: string, on: EdgeKind, output: unknown): RunState => {
  const outputs = new Map(s.outputs).set(nodeId, output);
  const next = successor(s.graph, nodeId, on);
  return { ...s, outputs, last: output, current: next, attempts: 0, retryAt: null, sleepUntil: null };
};

/** Folds one event of a run's stream (pure). */
export function evolveRun(s: RunState, e: FlowRunEvent): RunState {
  switch (e.type) {
    case 'FlowRunStarted': {
      const d = e.data;
      const base = {
        ...initialRunState(),
        status: 'running' as const,
        ...{ runId: d.runId, flowId: d.flowId, graph: d.graph, runAs: d.runAs, trigger: d.trigger },
        ...{ input: d.input, depth: d.depth, startedAt: d.at, last: d.input },
        ...{ rootRunId: d.rootRunId ?? d.runId, budget: d.budget ?? null },
      };
      if (d.retryOf) {
        const outputs = new Map(d.retryOf.outputs);
        return { ...base, outputs, current: d.retryOf.fromStep, last: d.retryOf.outputs.at(-1)?.[1] ?? d.input };
      }
      return { ...base, current: entryNodes(d.graph)[0] ?? null };
    }
    case 'FlowStepCompleted':
      return { ...leave(s, e.data.nodeId, e.data.edge, e.data.output), status: 'running', steps: s.steps + 1 };
    case 'FlowStepFailed': {
      const d = e.data;
      if (!d.final) return { ...s, attempts: d.attempt, retryAt: d.retryAt };
      const out = leave(s, d.nodeId, 'reject', { error: d.error });
      const rejected = successor(s.graph, d.nodeId, 'reject') !== null;
      return { ...out, steps: s.steps + 1, failure: rejected ? null : { nodeId: d.nodeId, error: d.error } };
    }
    case 'FlowRunSleeping':
      return { ...s, status: 'sleeping', sleepUntil: e.data.until };
    case 'FlowRunSucceeded':
      return { ...s, status: 'succeeded', current: null };
    case 'FlowRunFailed':
      return { ...s, status: 'failed', current: null };
  }
}

/** What the executor does next with a run (pure: the run's state and the time). */
export type NextAction =
  | { kind: 'none' }
  | { kind: 'wait'; until: string }
  | { kind: 'succeed' }
  | { kind: 'fail'; nodeId: string | null; error: StepError }
  | { kind: 'wake'; node: FlowNode; until: string }
  | { kind: 'step'; node: FlowNode; attempt: number };

export function nextAction(s: RunState, now: Date): NextAction {
  if (s.status === 'absent' || s.status === 'succeeded' || s.status === 'failed') return { kind: 'none' };
  if (s.failure) return { kind: 'fail', ...s.failure };
  if (s.current === null) return { kind: 'succeed' };
  const node = s.graph.nodes.find((n) => n.id === s.current);
  if (!node)
    return { kind: 'fail', nodeId: s.current, error: { code: 'NODE_NOT_FOUND', message: `no node ${s.current}` } };
  if (now.getTime() - Date.parse(s.startedAt) > RUN_LIMITS.runMs)
    return { kind: 'fail', nodeId: node.id, error: { code: 'RUN_TIMEOUT', message: 'the run took too long' } };
  if (s.steps >= RUN_LIMITS.steps)
    return {
      kind: 'fail',
      nodeId: node.id,
      error: { code: 'STEP_LIMIT', message: `a run records at most ${RUN_LIMITS.steps} steps` },
    };
  if (s.sleepUntil)
    return Date.parse(s.sleepUntil) <= now.getTime()
      ? { kind: 'wake', node, until: s.sleepUntil }
      : { kind: 'wait', until: s.sleepUntil };
  if (s.retryAt && Date.parse(s.retryAt) > now.getTime()) return { kind: 'wait', until: s.retryAt };
  return { kind: 'step', node, attempt: s.attempts + 1 };
}

/** The data chain a step's templates read: `$trigger`, `$last` and each earlier step's output by node id. */
export function dataChain(s: RunState): Map<string, unknown> {
  const chain = new Map(s.outputs);
  chain.set('$trigger', s.input);
  chain.set('$last', s.last);
  return chain;
}
