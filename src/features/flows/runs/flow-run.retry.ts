import type { AppDeps } from '../../../deps.ts';
import type { ActorRef } from '../../../kernel/es/event.ts';
import { entryNodes } from '../flow-graph.ts';
import type { FlowEntry } from '../flow.decider.ts';
import { FlowRunNotFound, RunRequestInvalid } from '../flow.errors.ts';
import { flowRunStream, type FlowRunEvent } from '../../../contracts/flows/flow-run.events.ts';
import { startRun } from './flow-run.commands.ts';
import { runOpener } from './flow-run.privacy.ts';
import { evolveRun, initialRunState } from './flow-run.state.ts';
import { domainEvent } from '../../../kernel/es/on-events.ts';

/**
 * Re-runs an ended run from one of its steps (by default the one that failed the run, else its first) with the
 * flow as it is now: the same input, and the outputs its earlier steps recorded (the data chain up to that step),
 * so a fixed flow picks up where the run stopped without doing the earlier steps again. The new run names the one
 * it retries.
 */
export async function retryRun(
  deps: AppDeps,
  input: {
    siteId: string;
    flow: FlowEntry;
    flowVersion: number;
    runId: string;
    fromStep?: string;
    startedBy?: ActorRef | null;
    now: Date;
  },
): Promise<string> {
  let state = initialRunState();
  const carried: [string, unknown][] = [];
  let failedNode: string | null = null;
  // The recorded values opened with the run's key (null once a subject it concerns was erased).
  const open = await runOpener(deps, input.siteId, input.runId);
  for await (const e of deps.store.readStream<FlowRunEvent>(flowRunStream(input.siteId, input.runId))) {
    const event = open(domainEvent(e));
    state = evolveRun(state, event);
    if (event.type === 'FlowStepCompleted') carried.push([event.data.nodeId, event.data.output]);
    if (event.type === 'FlowStepFailed' && event.data.final)
      carried.push([event.data.nodeId, { error: event.data.error }]);
    if (event.type === 'FlowRunFailed') failedNode = event.data.nodeId;
  }
  if (state.status === 'absent' || state.flowId !== input.flow.id) throw new FlowRunNotFound({ runId: input.runId });
  if (state.status !== 'succeeded' && state.status !== 'failed')
    throw new RunRequestInvalid({ message: 'only a run that ended can be retried', path: [], reason: 'run_not_ended' });
  const graph = input.flow.definition.graph;
  const fromStep = input.fromStep ?? failedNode ?? entryNodes(graph)[0];
  if (!fromStep || !graph.nodes.some((n) => n.id === fromStep))
    throw new RunRequestInvalid({
      message: `the flow has no node ${JSON.stringify(fromStep)}`,
      path: ['fromStep'],
      reason: 'unknown_node',
    });
  const before = carried.findIndex(([id]) => id === fromStep);
  const outputs = before < 0 ? carried : carried.slice(0, before);
  const { runId } = await startRun(deps, {
    siteId: input.siteId,
    flow: input.flow,
    flowVersion: input.flowVersion,
    trigger: 'retry',
    input: state.input,
    depth: state.depth,
    retryOf: { runId: input.runId, fromStep, outputs },
    startedBy: input.startedBy ?? null,
    now: input.now,
  });
  return runId;
}
