import { z } from 'zod';
import { RUN_STATUSES } from '../../../contracts/flows/flow-run.events.ts';
import { pathId } from '../../../kernel/http/path-params.ts';

const StepError = z.object({
  code: z.string(),
  message: z.string(),
  extensions: z.record(z.string(), z.unknown()).optional(),
});

/** One try of one step: its rendered options (input), its output or error, and how long it took. */
const RunStep = z
  .object({
    nodeId: z.string(),
    operation: z.string(),
    status: z.enum(['succeeded', 'failed', 'retrying']),
    edge: z.enum(['resolve', 'reject']).nullable().describe('the edge the run left the step by'),
    attempt: z.number().int(),
    input: z.unknown(),
    output: z.unknown(),
    error: StepError.nullable(),
    retryAt: z.string().nullable(),
    startedAt: z.string(),
    finishedAt: z.string(),
    durationMs: z.number().int(),
  })
  .meta({ id: 'FlowRunStep' });

/** A run of a flow with its steps. */
export const FlowRunBody = z
  .object({
    id: z.string(),
    flowId: z.string(),
    status: z.enum(RUN_STATUSES),
    trigger: z.string().describe('manual, webhook, schedule, event, flow (another flow) or retry'),
    input: z.unknown().describe('$trigger: what started the run'),
    depth: z.number().int(),
    error: StepError.nullable(),
    failedNode: z.string().nullable(),
    retryOf: z.string().nullable(),
    startedAt: z.string(),
    finishedAt: z.string().nullable(),
    durationMs: z.number().int().nullable(),
    steps: z.array(RunStep),
  })
  .meta({ id: 'FlowRun' });

export const RunParams = z.object({ id: pathId(64), runId: pathId(300) });

export const RunListQuery = z.object({
  status: z.enum(RUN_STATUSES).optional(),
  page: z.coerce.number().int().min(1).max(1_000_000).default(1),
  limit: z.coerce.number().int().min(1).max(200).default(25),
});
export const RunListMeta = z.object({ total: z.number().int(), page: z.number().int(), pageSize: z.number().int() });

/** The input of a manual run: any JSON value (the body), `$trigger` of the run. */
export const RunInputBody = z.unknown().describe("any JSON value: the run's $trigger");

/** POST /flows/:id/runs/:runId/retry: the node to start from (default: the one that failed the run, else the first). */
export const RetryBody = z
  .strictObject({ fromStep: z.string().min(1).max(64).optional() })
  .optional()
  .meta({ id: 'FlowRunRetry' });

const Iso = z.iso.datetime({ offset: true });
/** POST /flows/:id/backtest: the window of past events to play the flow against. */
export const BacktestBody = z.strictObject({ from: Iso, to: Iso }).meta({ id: 'FlowBacktest' });

/** One would-be run: the event that would have started it, and each step played in dry-run mode. */
export const BacktestRunBody = z
  .object({
    eventId: z.string(),
    event: z.string(),
    at: z.string(),
    input: z.unknown(),
    status: z.enum(['succeeded', 'failed']),
    error: StepError.nullable(),
    steps: z.array(
      z.object({
        nodeId: z.string(),
        operation: z.string(),
        status: z.enum(['succeeded', 'failed']),
        edge: z.string(),
        input: z.unknown(),
        output: z.unknown().describe('side effects appear as { wouldHave, … }'),
        error: z.unknown(),
      }),
    ),
  })
  .meta({ id: 'FlowBacktestRun' });
export const BacktestMeta = z.object({
  total: z.number().int(),
  scanned: z.number().int().describe('events of the log read'),
  truncated: z.boolean().describe('a bound was reached (100 runs, 100 000 events)'),
});
