import type { AppDeps } from '../../../deps.ts';
import { roleBase } from '../../access/index.ts';
import { ranksAbove } from '../flow.guard.ts';
import { WrongExpectedVersion } from '../../../kernel/es/event-store.ts';
import { loadFlow } from '../flow.commands.ts';
import { MAX_SLEEP_MS } from '../operations/registry.ts';
import { childRunId, flowRunStream, type FlowRunEvent } from '../../../contracts/flows/flow-run.events.ts';
import { loadRun, runMetadata, startRun } from './flow-run.commands.ts';
import { sealRunEvents } from './flow-run.privacy.ts';
import { stepCause } from './flow-run.item-ops.ts';
import {
  budgetError,
  budgetOf,
  readSpent,
  stepCharge,
  stepCost,
  stepRefusal,
  type BudgetSpent,
} from './flow-budget.ts';
import {
  failureOf,
  retryDelayMs,
  runAsPrincipal,
  runOperation,
  stepInput,
  StepFailure,
  triesOf,
  type StepContext,
} from './flow-run.ops.ts';
import { dataChain, evolveRun, nextAction, RUN_LIMITS, type NextAction, type RunState } from './flow-run.state.ts';

/** What the executor needs to act for a run: the service, and whether effects are only described (backtests). */
export interface ExecOptions {
  deps: AppDeps;
  siteId: string;
  dryRun?: boolean;
}

/** The context of one step of a run: the runAs role's principal, the flow as the actor of what it writes. */
function stepContext(o: ExecOptions, s: RunState, nodeId: string, now: Date): StepContext {
  // What a step writes names the step as its cause: a try after a crash finds its own earlier write by it.
  const metadata = runMetadata(o.siteId, s.flowId, s.rootRunId, now, stepCause(s.runId, nodeId));
  return {
    deps: o.deps,
    siteId: o.siteId,
    runId: s.runId,
    rootRunId: s.rootRunId,
    flowId: s.flowId,
    nodeId,
    depth: s.depth,
    principal: runAsPrincipal(s.flowId, o.siteId, s.runAs),
    command: { siteId: o.siteId, actor: metadata.actor, now, metadata },
    dryRun: o.dryRun ?? false,
    startChild: async (flowId, payload) => {
      const { state, version } = await loadFlow(o.deps.store, o.siteId, flowId);
      if (state.status !== 'present' || state.flow.definition.status !== 'active')
        throw new StepFailure(
          { code: 'FLOW_NOT_FOUND', message: `flow ${flowId} is no active flow of the site` },
          false,
        );
      // A flow starts no flow that acts with more rights than its own runAs role (as a person may not run one).
      const [childBase, ownBase] = await Promise.all([
        roleBase(o.deps, o.siteId, state.flow.definition.runAs),
        roleBase(o.deps, o.siteId, s.runAs),
      ]);
      if (childBase === null || ownBase === null || ranksAbove(childBase, ownBase))
        throw new StepFailure(
          {
            code: 'PERMISSION_DENIED',
            message: `flow ${flowId} runs as ${state.flow.definition.runAs}, above this run's ${s.runAs}`,
          },
          false,
        );
      const budget = s.budget ?? budgetOf(o.deps.config);
      const child = await startRun(o.deps, {
        siteId: o.siteId,
        flow: state.flow,
        flowVersion: version,
        trigger: 'flow',
        input: payload,
        depth: s.depth + 1,
        runId: childRunId(s.runId, nodeId),
        parent: { runId: s.runId, rootRunId: s.rootRunId, budget },
        now,
      });
      if (child.refused) throw new StepFailure(child.refused, false);
      return child.runId;
    },
  };
}

/**
 * The events one action of a run records: an ending, a woken sleep, or one try of a step (whose effects happen
 * here, before the events are appended: a crash between the two repeats that try, never a completed step).
 */
export async function perform(o: ExecOptions, s: RunState, a: NextAction, now: Date): Promise<FlowRunEvent[]> {
  const at = now.toISOString();
  const runId = s.runId;
  switch (a.kind) {
    case 'none':
    case 'wait':
      return [];
    case 'succeed':
      return [{ type: 'FlowRunSucceeded', data: { runId, at } }];
    case 'fail':
      return [{ type: 'FlowRunFailed', data: { runId, nodeId: a.nodeId, error: a.error, at } }];
    case 'wake': {
      const data = { runId, nodeId: a.node.id, operation: 'sleep', input: a.node.options, edge: 'resolve' as const };
      return [
        { type: 'FlowStepCompleted', data: { ...data, output: { until: a.until }, attempt: 1, startedAt: at, at } },
      ];
    }
    case 'step':
      return step(o, s, a.node, a.attempt, now);
  }
}

async function step(o: ExecOptions, s: RunState, node: RunState['graph']['nodes'][number], attempt: number, now: Date) {
  const startedAt = now.toISOString();
  const base = { runId: s.runId, nodeId: node.id, operation: node.operation, attempt, startedAt };
  const chain = dataChain(s);
  let input: Record<string, unknown> = node.options;
  try {
    input = stepInput(node, chain);
    if (node.operation === 'sleep') {
      const ms = Math.min(Number(input.ms), MAX_SLEEP_MS);
      const until = new Date(now.getTime() + ms).toISOString();
      if (!o.dryRun)
        return [
          { type: 'FlowRunSleeping', data: { runId: s.runId, nodeId: node.id, until, at: startedAt } },
        ] as FlowRunEvent[];
      const output = { wouldHave: 'slept', until };
      return [
        { type: 'FlowStepCompleted', data: { ...base, input, output, edge: 'resolve', at: startedAt } },
      ] as FlowRunEvent[];
    }
    const r = await runOperation(stepContext(o, s, node.id, now), node, input, chain, RUN_LIMITS.stepMs);
    const at = o.deps.clock.now().toISOString();
    return [
      { type: 'FlowStepCompleted', data: { ...base, input, output: r.output, edge: r.edge, at } },
    ] as FlowRunEvent[];
  } catch (err) {
    const f = failureOf(err);
    const final = !f.retryable || attempt >= triesOf(node.operation) || o.dryRun === true;
    const retryAt = final ? null : new Date(now.getTime() + retryDelayMs(attempt)).toISOString();
    const at = o.deps.clock.now().toISOString();
    return [{ type: 'FlowStepFailed', data: { ...base, input, error: f.error, final, retryAt, at } }] as FlowRunEvent[];
  }
}

/** The final failure of a step whose record could not be stored, without its input and output; null for other events. */
function unstorableStep(events: FlowRunEvent[]): FlowRunEvent[] | null {
  const e = events[0];
  if (events.length !== 1 || !e || (e.type !== 'FlowStepCompleted' && e.type !== 'FlowStepFailed')) return null;
  const { runId, nodeId, operation, attempt, startedAt, at } = e.data;
  const error = { code: 'OUTPUT_UNSTORABLE', message: 'the step ran, but its input or output cannot be recorded' };
  return [
    {
      type: 'FlowStepFailed',
      data: { runId, nodeId, operation, input: null, error, attempt, final: true, retryAt: null, startedAt, at },
    },
  ] as FlowRunEvent[];
}

/**
 * Advances one run as far as it goes now: each action's events appended at the stream's version, so two workers
 * never both record a step (the second's append conflicts and it stops). Returns the time the run wants to be
 * looked at again (a sleep, a retry), or null when it ended or another worker holds it. `maxActions` bounds the
 * work of one call (a crash is simulated by stopping early).
 */
export async function advanceRun(
  o: ExecOptions,
  runId: string,
  opts: { maxActions?: number } = {},
): Promise<{ state: RunState; wakeAt: string | null }> {
  let { state, version } = await loadRun(o.deps, o.siteId, runId);
  let spent: BudgetSpent | undefined;
  const limit = opts.maxActions ?? RUN_LIMITS.steps + 10;
  for (let i = 0; i < limit; i++) {
    const now = o.deps.clock.now();
    let action = nextAction(state, now);
    if (action.kind === 'none') return { state, wakeAt: null };
    if (action.kind === 'wait') return { state, wakeAt: action.until };
    if (action.kind === 'step' || action.kind === 'wake') {
      // What the whole tree has spent, read again before each step (only the charges since the last reading).
      const budget = state.budget ?? budgetOf(o.deps.config);
      spent = await readSpent(o.deps, o.siteId, state.rootRunId, spent);
      const refused = stepRefusal(spent, budget);
      if (refused)
        action = { kind: 'fail', nodeId: action.node.id, error: budgetError(refused, budget, state.rootRunId) };
    }
    let events = await perform(o, state, action, now);
    const metadata = runMetadata(o.siteId, state.flowId, state.rootRunId, now);
    // A step's record and its charge to the root's budget are one append: the ledger holds what the log holds.
    const append = async (list: FlowRunEvent[]) => {
      const own = (await sealRunEvents(o.deps, o.siteId, runId, list)).map((e) => ({
        type: e.type,
        data: e.data,
        metadata,
      }));
      const cost = stepCost(list);
      const [r] = await o.deps.store.appendMany([
        { streamId: flowRunStream(o.siteId, runId), events: own, expectedVersion: version },
        ...(cost.steps ? [stepCharge(o.siteId, state, cost, metadata)] : []),
      ]);
      return r!;
    };
    try {
      version = (await append(events)).nextExpectedVersion;
    } catch (err) {
      if (err instanceof WrongExpectedVersion) return { state, wakeAt: null };
      // A step whose input or output the log cannot hold (a NUL character, a lone surrogate, too large): it fails
      // for good, recorded without them, instead of being tried again every round.
      const unstorable = unstorableStep(events);
      if (!unstorable) throw err;
      events = unstorable;
      try {
        version = (await append(events)).nextExpectedVersion;
      } catch (again) {
        if (again instanceof WrongExpectedVersion) return { state, wakeAt: null };
        throw again;
      }
    }
    for (const e of events) state = evolveRun(state, e);
  }
  return { state, wakeAt: null };
}
