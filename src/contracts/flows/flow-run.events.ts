import type { ActorRef, DomainEvent } from '../../kernel/es/event.ts';
import type { EdgeKind, FlowGraph } from './flow.events.ts';
import type { RunBudget } from './flow-budget.events.ts';

/** What started a run: a person (manual), a webhook call, the schedule, an event of the log, or another flow. */
export const RUN_TRIGGERS = ['manual', 'webhook', 'schedule', 'event', 'flow', 'retry'] as const;
export type RunTrigger = (typeof RUN_TRIGGERS)[number];

/** A run's status as its stream folds it. */
export const RUN_STATUSES = ['running', 'sleeping', 'succeeded', 'failed'] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];

/** Why a step failed: a stable code (the item command's error code, or one of the runner's own) and a message. */
export interface StepError {
  code: string;
  message: string;
  extensions?: Record<string, unknown>;
}

/**
 * A run started: the flow's graph and runAs role as they were (a later save does not change a run under way), the
 * input (`$trigger`) and how deep flows started flows to get here.
 */
export type FlowRunStarted = DomainEvent<
  'FlowRunStarted',
  {
    runId: string;
    flowId: string;
    flowVersion: number;
    graph: FlowGraph;
    runAs: string;
    trigger: RunTrigger;
    input: unknown;
    depth: number;
    /** A retry: the run it re-runs and the node it starts from (the earlier steps' outputs are carried over). */
    retryOf?: { runId: string; fromStep: string; outputs: [string, unknown][] } | null;
    /** The person who started it by hand or retried it (absent for the other triggers, and on older runs). */
    startedBy?: ActorRef | null;
    /**
     * The subjects (people, items that are their own subjects) the run concerns from its start; its values (input,
     * carried outputs) are sealed under the run's own key, which their erasure destroys. Absent on older runs.
     */
    subjects?: string[];
    /** The root run whose budget this run spends (absent: the run is a root itself, or older). */
    rootRunId?: string;
    /** The root's budget, fixed when the root started and carried to every run it causes (absent on older runs). */
    budget?: RunBudget;
    at: string;
  }
>;
/** A step ran to completion: its rendered options (input), its output and the edge the run leaves it by. */
export type FlowStepCompleted = DomainEvent<
  'FlowStepCompleted',
  {
    runId: string;
    nodeId: string;
    operation: string;
    input: unknown;
    output: unknown;
    edge: EdgeKind;
    attempt: number;
    startedAt: string;
    at: string;
    /** Subjects the step met (the items an item step wrote or read): the run concerns them from here on. */
    subjects?: string[];
  }
>;
/**
 * A try of a step failed. `final`: no try is left (the run leaves by the reject edge, or fails without one);
 * otherwise the step is tried again at `retryAt`.
 */
export type FlowStepFailed = DomainEvent<
  'FlowStepFailed',
  {
    runId: string;
    nodeId: string;
    operation: string;
    input: unknown;
    error: StepError;
    attempt: number;
    final: boolean;
    retryAt: string | null;
    startedAt: string;
    at: string;
  }
>;
/** A `sleep` step is waiting: a timer in the log, resumed by the worker once `until` has passed. */
export type FlowRunSleeping = DomainEvent<
  'FlowRunSleeping',
  { runId: string; nodeId: string; until: string; at: string }
>;
/** The run reached a node with no edge to follow. */
export type FlowRunSucceeded = DomainEvent<'FlowRunSucceeded', { runId: string; at: string }>;
/** The run failed: a step failed with no reject edge, or a limit of the runner was reached. */
export type FlowRunFailed = DomainEvent<
  'FlowRunFailed',
  { runId: string; nodeId: string | null; error: StepError; at: string }
>;

export type FlowRunEvent =
  FlowRunStarted | FlowStepCompleted | FlowStepFailed | FlowRunSleeping | FlowRunSucceeded | FlowRunFailed;
export const FLOW_RUN_EVENT_TYPES = [
  'FlowRunStarted',
  'FlowStepCompleted',
  'FlowStepFailed',
  'FlowRunSleeping',
  'FlowRunSucceeded',
  'FlowRunFailed',
] as const satisfies readonly FlowRunEvent['type'][];

/** One stream per run. */
export const flowRunStream = (siteId: string, runId: string) => `${siteId}/flow-run/${runId}`;

/** The run a schedule fires at `scheduledFor`: one id per flow and firing, so two ticks or two nodes start it once. */
export const scheduledRunId = (flowId: string, scheduledFor: string) => `${flowId}@${scheduledFor}`;
/** The run an event of the log starts: one per flow and event, whatever the redeliveries. */
export const eventRunId = (flowId: string, eventId: string) => `${flowId}~${eventId}`;
/** The run a `trigger` step starts: one per parent run and node, whatever the step's retries. */
export const childRunId = (parentRunId: string, nodeId: string) => `${parentRunId}.${nodeId}`;
