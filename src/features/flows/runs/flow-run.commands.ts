import type { AppDeps } from '../../../deps.ts';
import type { EventMetadata } from '../../../kernel/es/event.ts';
import { WrongExpectedVersion } from '../../../kernel/es/event-store.ts';
import { newId } from '../../../kernel/ids.ts';
import type { FlowEntry } from '../flow.decider.ts';
import { flowRunStream, type FlowRunEvent, type FlowRunStarted, type RunTrigger } from './flow-run.events.ts';
import { evolveRun, initialRunState, type RunState } from './flow-run.state.ts';

/** The metadata of a run's own events: the flow acts, correlated by the run. */
export const runMetadata = (
  siteId: string,
  flowId: string,
  runId: string,
  now: Date,
  causationId: string | null = null,
): EventMetadata => ({
  siteId,
  actor: { type: 'flow', id: flowId },
  correlationId: `flow-run:${runId}`,
  causationId,
  requestId: null,
  occurredAt: now.toISOString(),
});

export interface StartRun {
  siteId: string;
  flow: FlowEntry;
  flowVersion: number;
  trigger: RunTrigger;
  input: unknown;
  depth?: number;
  /** A run id fixed by its cause (a schedule's firing, an event, a parent step): started at most once. */
  runId?: string;
  retryOf?: FlowRunStarted['data']['retryOf'];
  startedBy?: FlowRunStarted['data']['startedBy'];
  causationId?: string | null;
  now: Date;
}

/**
 * Starts a run: its stream is new (`no_stream`), so a run id fixed by its cause starts once whatever the retries,
 * ticks or nodes. `started` is false when it had been started before. The worker executes it.
 */
export async function startRun(
  deps: Pick<AppDeps, 'store'>,
  s: StartRun,
): Promise<{ runId: string; started: boolean }> {
  const runId = s.runId ?? newId();
  const data: FlowRunStarted['data'] = {
    runId,
    flowId: s.flow.id,
    flowVersion: s.flowVersion,
    graph: s.flow.definition.graph,
    runAs: s.flow.definition.runAs,
    trigger: s.trigger,
    input: s.input ?? null,
    depth: s.depth ?? 0,
    ...(s.retryOf ? { retryOf: s.retryOf } : {}),
    ...(s.startedBy ? { startedBy: s.startedBy } : {}),
    at: s.now.toISOString(),
  };
  const metadata = runMetadata(s.siteId, s.flow.id, runId, s.now, s.causationId ?? null);
  try {
    await deps.store.append(flowRunStream(s.siteId, runId), [{ type: 'FlowRunStarted', data, metadata }], {
      expectedVersion: 'no_stream',
    });
    return { runId, started: true };
  } catch (err) {
    if (err instanceof WrongExpectedVersion) return { runId, started: false };
    throw err;
  }
}

/** A run folded from its stream, and the stream's version. */
export async function loadRun(
  deps: Pick<AppDeps, 'store'>,
  siteId: string,
  runId: string,
): Promise<{ state: RunState; version: number }> {
  let state = initialRunState();
  let version = 0;
  for await (const e of deps.store.readStream<FlowRunEvent>(flowRunStream(siteId, runId))) {
    state = evolveRun(state, { type: e.type, data: e.data } as FlowRunEvent);
    version = e.streamVersion;
  }
  return { state, version };
}
