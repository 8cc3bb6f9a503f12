import { defineError } from '../../kernel/http/errors.ts';

type AtNode = { nodeId: string | null; message: string; path?: string[]; extensions?: Record<string, unknown> };
const atNode = (d: AtNode) => ({
  path: d.path ?? ['graph'],
  extensions: { nodeId: d.nodeId, ...(d.extensions ?? {}) },
});

/** The flow does not exist on the site (or was deleted). */
export const FlowNotFound = defineError<{ flowId: string }>(
  'NOT_FOUND',
  'not_found',
  (d) => `flow ${d.flowId} not found`,
);

/** A create names a flow id that exists (a generated id met again). */
export const FlowExists = defineError<{ flowId: string }>('CONFLICT', 'conflict', (d) => `flow ${d.flowId} exists`);

/** An active flow's graph has no single node to start from (empty, or more than one node no edge leads to). */
export const GraphNoEntry = defineError<AtNode>('GRAPH_NO_ENTRY', 'invalid', (d) => d.message, atNode);

/** An edge of an active flow names a node the graph does not have. */
export const GraphDanglingEdge = defineError<AtNode>('GRAPH_DANGLING_EDGE', 'invalid', (d) => d.message, atNode);

/** An active flow's graph has a cycle (self-loops included); `nodeId` is a node on it. */
export const GraphCycle = defineError<AtNode>('GRAPH_CYCLE', 'invalid', (d) => d.message, atNode);

/** A node of an active flow names an operation the registry does not have. */
export const GraphUnknownOperation = defineError<AtNode>(
  'GRAPH_UNKNOWN_OPERATION',
  'invalid',
  (d) => d.message,
  atNode,
);

/** Any other problem of an active flow's graph (options, templates, duplicate edges): 400 with the node. */
export const GraphInvalid = defineError<AtNode & { reason: string }>(
  'VALIDATION_FAILED',
  'invalid',
  (d) => d.message,
  (d) => ({ path: d.path ?? ['graph'], extensions: { nodeId: d.nodeId, reason: d.reason, ...(d.extensions ?? {}) } }),
);

/** A flow definition broken whatever its status (node ids, sizes, trigger options). */
export const FlowInvalid = defineError<{ message: string; path: string[]; reason: string; nodeId?: string }>(
  'VALIDATION_FAILED',
  'invalid',
  (d) => d.message,
  (d) => ({ path: d.path, extensions: { reason: d.reason, ...(d.nodeId === undefined ? {} : { nodeId: d.nodeId }) } }),
);

/** triggerOptions.cron is not a 5-field UTC cron expression, or one that never fires. */
export const CronInvalid = defineError<{ cron: string; reason: string }>(
  'CRON_INVALID',
  'invalid',
  (d) => `triggerOptions.cron ${JSON.stringify(d.cron.slice(0, 100))}: ${d.reason}`,
  () => ({ path: ['triggerOptions', 'cron'] }),
);

/** An active schedule flow needs triggerOptions.cron. */
export const CronRequired = defineError(
  'CRON_REQUIRED',
  'invalid',
  () => 'an active schedule flow needs triggerOptions.cron (5 fields, UTC)',
  () => ({ path: ['triggerOptions', 'cron'] }),
);

/** runAs names no role of the site. */
export const UnknownRunAsRole = defineError<{ role: string }>(
  'VALIDATION_FAILED',
  'invalid',
  (d) => `runAs: the site has no role ${JSON.stringify(d.role)}`,
  () => ({ path: ['runAs'], extensions: { reason: 'unknown_role' } }),
);

/**
 * A flow never acts with more rights than whoever manages it: its runAs role may not rank above the caller's, and a
 * caller may not change (or re-key) a flow whose runAs role ranks above theirs.
 */
export const RunAsAboveCaller = defineError<{ callerRole: string; runAs: string }>(
  'PERMISSION_DENIED',
  'forbidden',
  (d) => `a ${d.callerRole} may not manage a flow that runs as ${d.runAs}`,
  (d) => ({ path: ['runAs'], extensions: { reason: 'run_as_above_caller', runAs: d.runAs } }),
);

/** Only an active flow runs (a draft or an inactive flow is kept, not run). */
export const FlowNotActive = defineError<{ flowId: string; status: string }>(
  'CONFLICT',
  'conflict',
  (d) => `flow ${d.flowId} is ${d.status}: only an active flow runs`,
  (d) => ({ path: ['status'], extensions: { reason: 'flow_not_active', status: d.status } }),
);

/** No run of this flow has the id. */
export const FlowRunNotFound = defineError<{ runId: string }>(
  'NOT_FOUND',
  'not_found',
  (d) => `run ${d.runId} not found`,
);

/** The webhook flow has no token yet (POST /flows/:id/token issues one): nothing can authenticate a call. */
export const WebhookNotConfigured = defineError(
  'WEBHOOK_NOT_CONFIGURED',
  'unauthenticated',
  () => 'this flow has no webhook token yet',
);

/** The webhook call carried no token, or not the flow's. */
export const WebhookTokenInvalid = defineError(
  'UNAUTHENTICATED',
  'unauthenticated',
  () => 'a valid flow token is required (header x-flow-token, or Authorization: Bearer)',
);

/** A retry or backtest that cannot be made: the run has not ended, no such step, not an event flow, a bad window. */
export const RunRequestInvalid = defineError<{ message: string; path: string[]; reason: string }>(
  'VALIDATION_FAILED',
  'invalid',
  (d) => d.message,
  (d) => ({ path: d.path, extensions: { reason: d.reason } }),
);

/** A site's budget of root runs refuses another now (its live runs, or its starts this minute): ask after Retry-After. */
export const SiteRunsLimited = defineError<{
  message: string;
  budget: string;
  limit: number;
  retryAfter: number;
  headers: Record<string, string>;
}>(
  'RATE_LIMITED',
  'rate_limited',
  (d) => d.message,
  (d) => ({
    extensions: { budget: d.budget, limit: d.limit, retryAfter: d.retryAfter },
    headers: { ...d.headers, 'retry-after': String(d.retryAfter) },
  }),
);

/**
 * A call of a flow run tree (x-svc-flow-tree) would start a run its root's budget no longer allows, or one deeper than
 * flows may go: the budget never refills, so the answer is no 429 to try again.
 */
export const TreeBudgetExceeded = defineError<{ message: string; extensions: Record<string, unknown> }>(
  'BUDGET_EXCEEDED',
  'conflict',
  (d) => d.message,
  (d) => ({ extensions: d.extensions }),
);
