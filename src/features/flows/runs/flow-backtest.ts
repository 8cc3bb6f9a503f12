import type { AppDeps } from '../../../deps.ts';
import type { StoredEvent } from '../../../kernel/es/event.ts';
import type { StoredEventOf } from '../../../kernel/es/projector.ts';
import type { FlowEntry } from '../flow.decider.ts';
import { RunRequestInvalid } from '../flow.errors.ts';
import { validateFlow } from '../flow.validate.ts';
import { touchesRestricted } from '../../webhooks/index.ts';
import { flowTakes, triggerInput, TRIGGER_EVENT_TYPES, type TriggerEvent } from './flow-event.reactor.ts';
import type { FlowRunEvent } from '../../../contracts/flows/flow-run.events.ts';
import { perform } from './flow-run.executor.ts';
import { evolveRun, initialRunState, nextAction, RUN_LIMITS } from './flow-run.state.ts';

/** Bounds of one backtest: the log it reads and the runs it plays. */
export const BACKTEST_LIMITS = { events: 100_000, runs: 100, windowMs: 92 * 24 * 3600_000 } as const;

/** One would-be run of a backtest: the event that would have started it and its steps. */
export interface BacktestRun {
  eventId: string;
  event: string;
  at: string;
  input: unknown;
  status: 'succeeded' | 'failed';
  error: { code: string; message: string } | null;
  steps: {
    nodeId: string;
    operation: string;
    status: 'succeeded' | 'failed';
    edge: string;
    input: unknown;
    output: unknown;
    error: unknown;
  }[];
}

const TYPES = new Set<string>(TRIGGER_EVENT_TYPES);

/** Plays one run in memory: every step in dry-run mode (writes, mail, requests, flows described, not done). */
async function playRun(deps: AppDeps, siteId: string, flow: FlowEntry, e: StoredEventOf<TriggerEvent>, input: unknown) {
  const at = e.createdAt.toISOString();
  const started: FlowRunEvent = {
    type: 'FlowRunStarted',
    data: {
      runId: `backtest~${e.eventId}`,
      flowId: flow.id,
      flowVersion: 0,
      graph: flow.definition.graph,
      runAs: flow.definition.runAs,
      trigger: 'event',
      input,
      depth: 0,
      at,
    },
  };
  let state = evolveRun(initialRunState(), started);
  const steps: BacktestRun['steps'] = [];
  let error: BacktestRun['error'] = null;
  for (let i = 0; i < RUN_LIMITS.steps + 2; i++) {
    const action = nextAction(state, e.createdAt);
    if (action.kind === 'none' || action.kind === 'wait') break;
    for (const x of await perform({ deps, siteId, dryRun: true }, state, action, e.createdAt)) {
      if (x.type === 'FlowStepCompleted') steps.push({ ...x.data, status: 'succeeded', error: null });
      if (x.type === 'FlowStepFailed')
        steps.push({ ...x.data, status: 'failed', edge: 'reject', output: null, error: x.data.error });
      if (x.type === 'FlowRunFailed') error = x.data.error;
      state = evolveRun(state, x);
    }
  }
  return { status: state.status === 'failed' ? ('failed' as const) : ('succeeded' as const), error, steps };
}

/**
 * Plays an event flow (a draft too) against the site's events of the past between `from` and `to`: the would-be
 * runs, each step in dry-run mode ("would have …"), nothing written, no mail queued, no request sent. Reads
 * (`item.read`) see the items as they are now. Events of a person under restriction start nothing, as live.
 */
export async function backtestFlow(
  deps: AppDeps,
  siteId: string,
  flow: FlowEntry,
  window: { from: Date; to: Date },
): Promise<{ runs: BacktestRun[]; scanned: number; truncated: boolean }> {
  if (flow.definition.trigger !== 'event')
    throw new RunRequestInvalid({
      message: 'only an event flow can be backtested',
      path: ['trigger'],
      reason: 'not_event_flow',
    });
  if (
    window.to.getTime() < window.from.getTime() ||
    window.to.getTime() - window.from.getTime() > BACKTEST_LIMITS.windowMs
  )
    throw new RunRequestInvalid({
      message: 'to must follow from, at most 92 days later',
      path: ['to'],
      reason: 'bad_window',
    });
  validateFlow({ ...flow.definition, status: 'active' }, deps.clock.now());
  const runs: BacktestRun[] = [];
  let scanned = 0;
  let after: string | undefined;
  while (scanned < BACKTEST_LIMITS.events && runs.length < BACKTEST_LIMITS.runs) {
    const page: StoredEvent[] = await deps.store.readAll({ ...(after ? { after } : {}), limit: 500 });
    if (!page.length) break;
    for (const raw of page) {
      scanned++;
      after = raw.checkpoint;
      if (raw.siteId !== siteId || !TYPES.has(raw.type)) continue;
      if (raw.createdAt < window.from || raw.createdAt > window.to) continue;
      const e = raw as StoredEventOf<TriggerEvent>;
      const { event, collections, input } = triggerInput(e);
      if (!flowTakes(flow.definition, event, collections) || (await touchesRestricted(deps, e))) continue;
      const played = await playRun(deps, siteId, flow, e, input);
      runs.push({ eventId: e.eventId, event, at: e.createdAt.toISOString(), input, ...played });
      if (runs.length >= BACKTEST_LIMITS.runs) break;
    }
  }
  return { runs, scanned, truncated: runs.length >= BACKTEST_LIMITS.runs || scanned >= BACKTEST_LIMITS.events };
}
