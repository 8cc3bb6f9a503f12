import type { AppDeps } from '../../../deps.ts';
import type { Actor } from '../../../kernel/auth/actor.ts';
import type { CommandContext } from '../../../kernel/http/command-meta.ts';
import type { Principal } from '../../../kernel/http/access.ts';
import { DomainError } from '../../../kernel/http/errors.ts';
import { encodeFlowTree, FLOW_TREE_HEADER, FLOW_TREE_TTL_MS } from '../../../kernel/http/flow-tree.ts';
import { outboundRequest, OutboundError } from '../../../platform/net/outbound-http.ts';
import { dictFrom } from '../../../kernel/safe/keys.ts';
import { queueMarketingMail } from '../../email/index.ts';
import { compileCondition } from '../flow-condition.ts';
import { renderTemplate, TemplateError, type DataChain } from '../flow-template.ts';
import type { EdgeKind, FlowNode } from '../../../contracts/flows/flow.events.ts';
import { MAX_TRIGGER_DEPTH, OPERATIONS } from '../operations/registry.ts';
import type { StepError } from '../../../contracts/flows/flow-run.events.ts';
import { itemHandlers as item } from './flow-run.item-ops.ts';

/** A step's failure: its code and message, and whether another try may succeed (a timeout, a network error). */
export class StepFailure extends Error {
  constructor(
    readonly error: StepError,
    readonly retryable: boolean,
    readonly output: unknown = null,
  ) {
    super(error.message);
    this.name = 'StepFailure';
  }
}

/** What an operation needs besides its options: the run, the role it acts as, and whether it may act at all. */
export interface StepContext {
  deps: AppDeps;
  siteId: string;
  runId: string;
  /** The root of the run's tree: what the run causes, over HTTP too, spends the root's budget. */
  rootRunId: string;
  flowId: string;
  nodeId: string;
  depth: number;
  /** The principal the runAs role gives: item operations are checked as a request of that role would be. */
  principal: Principal;
  command: CommandContext;
  /** Backtests: side effects are described ("would have …"), never done. */
  dryRun: boolean;
  /** Starts another flow's run (the `trigger` operation): its run id. */
  startChild(flowId: string, payload: unknown): Promise<string>;
}

export interface StepResult {
  edge: EdgeKind;
  output: unknown;
}

/** Tries of one step by operation (the first included); those not named run once. */
const TRIES = new Map<string, number>([
  ['request', 3],
  ['mail', 2],
  ['item.create', 2],
  ['item.read', 2],
  ['item.update', 2],
  ['item.delete', 2],
  ['trigger', 2],
]);
export const triesOf = (operation: string) => TRIES.get(operation) ?? 1;
/** The wait before try n+1: one second, doubled each time, at most a minute. */
export const retryDelayMs = (attempt: number) => Math.min(1000 * 2 ** (attempt - 1), 60_000);

/** The principal of a flow's runAs role on its site: no user, no factors, only that role's permissions. */
export const runAsPrincipal = (flowId: string, siteId: string, runAs: string): Principal => {
  const actor: Actor = {
    type: 'flow',
    id: flowId,
    email: '',
    instanceAdmin: false,
    roles: dictFrom([[siteId, runAs]]),
    tokenVersion: 0,
  };
  return { actor, site: { id: siteId } };
};

const resolve = (output: unknown): StepResult => ({ edge: 'resolve', output });
const str = (v: unknown) => (typeof v === 'string' ? v : v === null || v === undefined ? '' : JSON.stringify(v));
const values = (v: unknown): Record<string, unknown> =>
  v !== null && typeof v === 'object' && !Array.isArray(v) ? dictFrom(Object.entries(v)) : dictFrom([]);

/**
 * The tree header of a step's call (x-svc-flow-tree): a call that comes back to the service (a webhook trigger, an
 * item write with an API key) then continues this run's tree and spends its root's budget.
 */
const treeHeader = (c: StepContext) =>
  encodeFlowTree(
    {
      ...{ siteId: c.siteId, rootRunId: c.rootRunId, runId: c.runId, nodeId: c.nodeId, depth: c.depth },
      expiresAt: c.command.now.getTime() + FLOW_TREE_TTL_MS,
    },
    (payload) => c.deps.tokens.signFlowTree(payload),
  );

/** Turns what an operation threw into the step's failure: a refusal of the item engine keeps its code. */
export function failureOf(err: unknown): StepFailure {
  if (err instanceof StepFailure) return err;
  if (err instanceof DomainError) {
    const [first] = err.toErrorObjects();
    const extensions = first?.extensions ?? {};
    return new StepFailure({ code: err.code, message: err.message, extensions }, false);
  }
  if (err instanceof TemplateError) return new StepFailure({ code: 'TEMPLATE_ERROR', message: err.message }, false);
  if (err instanceof OutboundError) {
    const retryable = err.reason === 'timeout' || err.reason === 'network' || err.reason === 'unresolved';
    return new StepFailure(
      { code: 'REQUEST_FAILED', message: err.message, extensions: { reason: err.reason } },
      retryable,
    );
  }
  const message = err instanceof Error ? err.message : String(err);
  return new StepFailure({ code: 'STEP_ERROR', message }, true);
}

type Handler = (c: StepContext, o: Record<string, unknown>, chain: DataChain) => Promise<StepResult>;

const HANDLERS = new Map<string, Handler>([
  [
    'condition',
    async (_c, o, chain) => ({
      edge: compileCondition(o.filter).test(chain) ? 'resolve' : 'reject',
      output: chain.get('$last') ?? null,
    }),
  ],
  ['transform', async (_c, o) => resolve(o.template)],
  ['item.create', item.create],
  ['item.read', item.read],
  ['item.update', item.update],
  ['item.delete', item.delete],
  [
    'mail',
    async (c, o) => {
      const mail = { siteId: c.siteId, to: str(o.to), subject: str(o.subject), body: str(o.body) };
      if (c.dryRun) return resolve({ wouldHave: 'queued a mail', to: mail.to, subject: mail.subject });
      // Suppressed addresses and people who restricted processing get nothing (the marketing path checks both).
      return resolve({ to: mail.to, ...(await queueMarketingMail(c.deps, mail)) });
    },
  ],
  [
    'request',
    async (c, o) => {
      const method = o.method as 'GET';
      const url = str(o.url);
      if (c.dryRun) return resolve({ wouldHave: 'sent a request', method, url });
      const body = o.body === undefined ? undefined : JSON.stringify(o.body);
      // The tree header is the service's to set: one the flow names is replaced, never sent as written.
      const given = Object.entries(values(o.headers)).filter(([k]) => k.toLowerCase() !== FLOW_TREE_HEADER);
      const headers = dictFrom(given.map(([k, v]) => [k, str(v)] as const));
      headers[FLOW_TREE_HEADER] = treeHeader(c);
      if (body !== undefined && !Object.keys(headers).some((k) => k.toLowerCase() === 'content-type'))
        headers['content-type'] = 'application/json';
      const res = await outboundRequest(url, {
        method,
        headers,
        ...(body === undefined ? {} : { body }),
        allowPrivate: c.deps.config.SVC_FLOW_ALLOW_PRIVATE,
        timeoutMs: Number(o.timeoutMs),
        maxBytes: Number(o.maxBytes),
      });
      let parsed: unknown = res.text;
      try {
        parsed = res.text ? (JSON.parse(res.text) as unknown) : null;
      } catch {
        // Not JSON: the text as it came.
      }
      const output = { status: res.status, body: parsed };
      if (res.status >= 400) {
        const error = { code: 'REQUEST_FAILED', message: `answered ${res.status}`, extensions: { status: res.status } };
        throw new StepFailure(error, res.status >= 500 || res.status === 429, output);
      }
      return resolve(output);
    },
  ],
  ['log', async (_c, o) => resolve({ level: o.level, message: str(o.message) })],
  [
    'trigger',
    async (c, o) => {
      if (c.depth + 1 > MAX_TRIGGER_DEPTH)
        throw new StepFailure(
          { code: 'TRIGGER_DEPTH_EXCEEDED', message: `flows start flows at most ${MAX_TRIGGER_DEPTH} levels deep` },
          false,
        );
      if (c.dryRun) return resolve({ wouldHave: 'started a run', flow: o.flow });
      return resolve({ runId: await c.startChild(str(o.flow), o.payload ?? null) });
    },
  ],
  [
    'throw',
    async (_c, o) => {
      throw new StepFailure({ code: 'FLOW_THROW', message: str(o.message) }, false);
    },
  ],
]);

/**
 * A node's options parsed with its operation's schema (defaults filled) and rendered against the data chain: the
 * step's recorded input. A condition's filter and a transform's template are kept as written (they read the chain
 * themselves, or are the output).
 */
export function stepInput(node: FlowNode, chain: DataChain): Record<string, unknown> {
  const spec = OPERATIONS.get(node.operation);
  if (!spec)
    throw new StepFailure({ code: 'UNKNOWN_OPERATION', message: `unknown operation ${node.operation}` }, false);
  const parsed = spec.options.safeParse(node.options);
  if (!parsed.success)
    throw new StepFailure(
      { code: 'INVALID_OPTIONS', message: parsed.error.issues[0]?.message ?? 'invalid options' },
      false,
    );
  const options = parsed.data as Record<string, unknown>;
  if (node.operation === 'condition') return options;
  return renderTemplate(options, chain) as Record<string, unknown>;
}

/** Runs one operation (sleep is the executor's: a timer in the log), bounded by the step time limit. */
export async function runOperation(
  c: StepContext,
  node: FlowNode,
  input: Record<string, unknown>,
  chain: DataChain,
  stepMs: number,
): Promise<StepResult> {
  const handler = HANDLERS.get(node.operation);
  if (!handler)
    throw new StepFailure({ code: 'UNKNOWN_OPERATION', message: `unknown operation ${node.operation}` }, false);
  let timer: NodeJS.Timeout | undefined;
  const limit = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new StepFailure({ code: 'STEP_TIMEOUT', message: `a step runs at most ${stepMs} ms` }, true)),
      stepMs,
    );
  });
  try {
    return await Promise.race([handler(c, input, chain), limit]);
  } finally {
    clearTimeout(timer);
  }
}
