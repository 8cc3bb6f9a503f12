import type { AppDeps } from '../../../deps.ts';
import type { EventMetadata, NewEvent } from '../../../kernel/es/event.ts';
import { WrongExpectedVersion } from '../../../kernel/es/event-store.ts';
import { newId } from '../../../kernel/ids.ts';
import type { FlowEntry } from '../flow.decider.ts';
import {
  flowRunStream,
  type FlowRunEvent,
  type FlowRunFailed,
  type FlowRunStarted,
  type RunTrigger,
  type StepError,
} from '../../../contracts/flows/flow-run.events.ts';
import { SiteRunsLimited } from '../flow.errors.ts';
import { budgetError, budgetOf, startInTree, type TreePlace } from './flow-budget.ts';
import { siteBudgetError, siteRootRefusal } from './flow-site-budget.ts';
import { runOpener, sealRunEvents } from './flow-run.privacy.ts';
import { evolveRun, initialRunState, type RunState } from './flow-run.state.ts';
import { domainEvent } from '../../../kernel/es/on-events.ts';

/**
 * The metadata of a run's events and of what its steps write: the flow acts, correlated by the root run of its tree
 * (`flow-run:<rootRunId>`), so every event a tree causes names the root whose budget it spends.
 */
export const runMetadata = (
  siteId: string,
  flowId: string,
  rootRunId: string,
  now: Date,
  causationId: string | null = null,
): EventMetadata => ({
  siteId,
  actor: { type: 'flow', id: flowId },
  correlationId: `flow-run:${rootRunId}`,
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
  /** The run that causes this one (a `trigger` step's run, the writer of an event): the new run spends its root's budget. */
  parent?: TreePlace;
  /** A start the budget refuses is recorded as a failed run saying why (event runs: nothing else would show it). */
  recordRefusal?: boolean;
  now: Date;
}

/**
 * Starts a run: its stream is new (`no_stream`), so a run id fixed by its cause starts once whatever the retries,
 * ticks or nodes. `started` is false when it had been started before. A run without a parent is a root: it starts
 * only if the site's budget of roots allows (its live runs, its starts per minute), else 429 (SiteRunsLimited), and
 * gets a budget of its own; one with a parent starts only if its root's budget allows. `refused` is the error that
 * says why a start was refused; with `recordRefusal` the refused run is recorded as failed with it. The worker
 * executes it.
 */
export async function startRun(
  deps: Pick<AppDeps, 'store' | 'config' | 'db' | 'schemas' | 'limiter'>,
  s: StartRun,
): Promise<{ runId: string; started: boolean; refused: StepError | null }> {
  const runId = s.runId ?? newId();
  // Before anything is made for it (its key, its events): a refused root costs a count and a counter.
  const site = s.parent ? null : await siteRootRefusal(deps, s.siteId);
  const siteRefusal = site && siteBudgetError(site, s.siteId);
  if (site && siteRefusal && !s.recordRefusal) throw new SiteRunsLimited({ message: siteRefusal.message, ...site });
  const tree = s.parent
    ? { rootRunId: s.parent.rootRunId, budget: s.parent.budget }
    : { budget: budgetOf(deps.config) };
  // Its values go into the log sealed under the run's own key (flow-run.privacy.ts), which an erasure reaches.
  const data: FlowRunStarted['data'] = await sealStart(deps, s.siteId, {
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
    ...tree,
    at: s.now.toISOString(),
  });
  const metadata = runMetadata(s.siteId, s.flow.id, s.parent?.rootRunId ?? runId, s.now, s.causationId ?? null);
  const stream = flowRunStream(s.siteId, runId);
  const events: NewEvent[] = [{ type: 'FlowRunStarted', data, metadata }];
  const appendNew = async (list: NewEvent[]) => {
    try {
      await deps.store.append(stream, list, { expectedVersion: 'no_stream' });
      return true;
    } catch (err) {
      if (err instanceof WrongExpectedVersion) return false;
      throw err;
    }
  };
  // A refused start recorded as a run that failed at once, saying why (nothing else would show it).
  const recordRefused = async (error: StepError) => {
    const failed: FlowRunFailed['data'] = { runId, nodeId: null, error, at: data.at };
    return {
      runId,
      started: await appendNew([...events, { type: 'FlowRunFailed', data: failed, metadata }]),
      refused: error,
    };
  };
  if (!s.parent)
    return siteRefusal ? recordRefused(siteRefusal) : { runId, started: await appendNew(events), refused: null };
  const r = await startInTree(deps, s.siteId, { streamId: stream, runId, events }, s.parent);
  if (!r.refused) return { runId, started: r.started, refused: null };
  const error = budgetError(r.refused, s.parent.budget, s.parent.rootRunId);
  return s.recordRefusal ? recordRefused(error) : { runId, started: false, refused: error };
}

/** A run folded from its stream, and the stream's version. */
export async function loadRun(
  deps: Pick<AppDeps, 'store' | 'db' | 'config'>,
  siteId: string,
  runId: string,
): Promise<{ state: RunState; version: number }> {
  let state = initialRunState();
  let version = 0;
  const open = await runOpener(deps, siteId, runId);
  for await (const e of deps.store.readStream<FlowRunEvent>(flowRunStream(siteId, runId))) {
    state = evolveRun(state, open(domainEvent(e)));
    version = e.streamVersion;
  }
  return { state, version };
}

/** A run's start as recorded: the subjects it concerns named, its values sealed under the run's key. */
async function sealStart(
  deps: Pick<AppDeps, 'config' | 'db' | 'schemas'>,
  siteId: string,
  data: FlowRunStarted['data'],
): Promise<FlowRunStarted['data']> {
  const [sealed] = await sealRunEvents(deps, siteId, data.runId, [{ type: 'FlowRunStarted', data }]);
  return (sealed as FlowRunStarted).data;
}
