import { createHash } from 'node:crypto';
import type { AppDeps } from '../../../deps.ts';
import { flowCallCause, type FlowTree } from '../../../kernel/http/flow-tree.ts';
import { TreeBudgetExceeded } from '../flow.errors.ts';
import { MAX_TRIGGER_DEPTH } from '../operations/registry.ts';
import { budgetOf, type TreePlace } from './flow-budget.ts';
import { loadRun, startRun, type StartRun } from './flow-run.commands.ts';

/**
 * The run a step's call starts in another flow (a webhook trigger with the tree header): one per calling step and
 * flow, whatever the step's tries or a replay of its header, so a refusal too is recorded once. A digest, not the
 * parts joined: ids of nested calls would otherwise grow with every level.
 */
export const callRunId = (tree: FlowTree, flowId: string) =>
  `call-${createHash('sha256').update(`${tree.runId}\n${tree.nodeId}\n${flowId}`).digest('base64url').slice(0, 32)}`;

/** Where a run a tree's call starts stands: one level below the calling run, on its root's budget. */
export interface CallPlace {
  runId: string;
  depth: number;
  parent: TreePlace;
  causationId: string;
}

/**
 * The place in its tree of the run a genuine tree header's call starts in `flowId`, as a `trigger` step's child
 * would stand; null when the calling run is not of this site's log (then the call starts a root, as without a header).
 * Past the depth flows may go, the call is refused (409 BUDGET_EXCEEDED, budget `depth`).
 */
export async function callPlace(
  deps: Pick<AppDeps, 'store' | 'db' | 'config'>,
  siteId: string,
  tree: FlowTree,
  flowId: string,
): Promise<CallPlace | null> {
  const { state } = await loadRun(deps, siteId, tree.runId);
  if (state.status === 'absent') return null;
  const depth = state.depth + 1;
  if (depth > MAX_TRIGGER_DEPTH)
    throw new TreeBudgetExceeded({
      message: `flows start flows at most ${MAX_TRIGGER_DEPTH} levels deep`,
      extensions: { budget: 'depth', limit: MAX_TRIGGER_DEPTH, rootRunId: state.rootRunId },
    });
  const budget = state.budget ?? budgetOf(deps.config);
  return {
    runId: callRunId(tree, flowId),
    depth,
    parent: { runId: state.runId, rootRunId: state.rootRunId, budget },
    causationId: flowCallCause(tree.runId, tree.nodeId),
  };
}

/**
 * Starts a run a request asks for (a webhook call, a manual run): in the caller's tree when the request carries a
 * genuine tree header of the site (a refusal of the root's budget is recorded as a failed run and answered 409
 * BUDGET_EXCEEDED), else as a root within the site's budget of roots (429 past it). Returns the run id.
 */
export async function startCalled(
  deps: AppDeps,
  tree: FlowTree | null,
  s: Omit<StartRun, 'runId' | 'depth' | 'parent' | 'causationId' | 'recordRefusal'>,
): Promise<string> {
  const place = tree && (await callPlace(deps, s.siteId, tree, s.flow.id));
  const r = await startRun(deps, { ...s, ...(place ?? {}), recordRefusal: place !== null });
  if (r.refused)
    throw new TreeBudgetExceeded({
      message: r.refused.message,
      extensions: { ...r.refused.extensions, runId: r.runId },
    });
  return r.runId;
}
