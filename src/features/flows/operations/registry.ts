import { z } from 'zod';
import { own } from '../../../kernel/safe/keys.ts';
import { EDGE_KINDS, type EdgeKind } from '../../../contracts/flows/flow.events.ts';
import { compileCondition, ConditionError } from '../flow-condition.ts';

/** How deep flows may start flows (`trigger`): a chain deeper than this fails instead of running on. */
export const MAX_TRIGGER_DEPTH = 5;
/** The longest durable `sleep`: 30 days. */
export const MAX_SLEEP_MS = 30 * 24 * 3600 * 1000;
/** `request` bounds: its timeout and the most bytes of an answer it reads. */
export const REQUEST_LIMITS = { timeoutMs: 30_000, defaultTimeoutMs: 10_000, maxBytes: 1_048_576 } as const;

/** A problem of one node's options beyond their shape, at a path under `options`. */
export interface OptionProblem {
  message: string;
  path: string[];
}

/** An operation a flow's node may name: its options (zod, strict), what it does, and the edges it leaves by. */
export interface OperationSpec {
  key: string;
  hint: string;
  options: z.ZodType;
  edges: readonly EdgeKind[];
  /** Checks the shape cannot express (a condition's filter compiles). */
  check?: (options: Record<string, unknown>) => OptionProblem | null;
}

const Templated = (max: number, what: string) =>
  z.string().max(max).describe(`${what}; may hold {{ $trigger.x }}, {{ $last.y }} or {{ <nodeId>.z }}`);
const Collection = z
  .string()
  .regex(/^[A-Za-z][A-Za-z0-9_]{0,63}$/)
  .describe('a collection of the site');
const Values = z.record(z.string(), z.unknown()).describe('field values; strings may hold templates');
const Filter = z.record(z.string(), z.unknown());
const HeaderName = z.string().regex(/^[A-Za-z0-9-]{1,64}$/);

const op = (key: string, hint: string, options: z.ZodType, check?: OperationSpec['check']): OperationSpec => ({
  key,
  hint,
  options,
  edges: EDGE_KINDS,
  ...(check ? { check } : {}),
});

const conditionCheck = (options: Record<string, unknown>): OptionProblem | null => {
  try {
    compileCondition(own(options, 'filter'));
    return null;
  } catch (err) {
    if (err instanceof ConditionError) return { message: `filter: ${err.message}`, path: ['filter', ...err.path] };
    throw err;
  }
};

const SPECS: OperationSpec[] = [
  op(
    'condition',
    'Leaves by resolve when the filter holds for the data chain, by reject otherwise. Paths start at $trigger, $last or a node id, dotted or nested.',
    z.strictObject({
      filter: Filter.describe(
        'the item filter language over the data chain, dotted {"$last.status": {"_eq": "published"}} or nested {"$last": {"status": {"_eq": "published"}}}',
      ),
    }),
    conditionCheck,
  ),
  op(
    'transform',
    "Outputs its template rendered against the data chain; a whole-string {{ path }} keeps the value's type. Nothing is evaluated.",
    z.strictObject({
      template: z
        .unknown()
        .refine((v) => v !== undefined, 'template is required')
        .describe('any JSON value; strings may hold {{ path }} references'),
    }),
  ),
  op(
    'item.create',
    "Creates an item through the normal write path, with the runAs role's permissions and the editorial gate.",
    z.strictObject({ collection: Collection, data: Values }),
  ),
  op(
    'item.read',
    "Reads one item by id, or a filtered list, with the runAs role's read permissions.",
    z.strictObject({
      collection: Collection,
      id: Templated(512, 'the item id').optional(),
      filter: Filter.optional().describe('the item filter language'),
      limit: z.number().int().min(1).max(200).default(25),
    }),
  ),
  op(
    'item.update',
    "Updates an item through the normal write path, with the runAs role's permissions and the editorial gate.",
    z.strictObject({ collection: Collection, id: Templated(512, 'the item id'), data: Values }),
  ),
  op(
    'item.delete',
    "Deletes an item through the normal write path, with the runAs role's permissions.",
    z.strictObject({ collection: Collection, id: Templated(512, 'the item id') }),
  ),
  op(
    'mail',
    'Queues a mail in the outbox; suppressed addresses and restricted persons get no marketing mail.',
    z.strictObject({
      to: Templated(320, 'the recipient address'),
      subject: Templated(998, 'the subject line'),
      body: Templated(10_000, 'the plain-text body'),
      marketing: z.boolean().default(false).describe('marketing mail also skips whoever restricted processing'),
    }),
  ),
  op(
    'request',
    'Sends one outbound HTTP request with a timeout and a size cap; private, loopback and link-local addresses are refused after DNS resolution unless SVC_FLOW_ALLOW_PRIVATE=true.',
    z.strictObject({
      method: z.enum(['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD']).default('GET'),
      url: Templated(2048, 'an http(s) address'),
      headers: z.record(HeaderName, Templated(4096, 'a header value')).optional(),
      body: z.unknown().optional().describe('a JSON body; strings may hold templates'),
      timeoutMs: z.number().int().min(100).max(REQUEST_LIMITS.timeoutMs).default(REQUEST_LIMITS.defaultTimeoutMs),
      maxBytes: z.number().int().min(1).max(REQUEST_LIMITS.maxBytes).default(REQUEST_LIMITS.maxBytes),
    }),
  ),
  op(
    'log',
    "Writes a line to the run's log.",
    z.strictObject({
      message: Templated(2000, 'the line'),
      level: z.enum(['debug', 'info', 'warn', 'error']).default('info'),
    }),
  ),
  op(
    'sleep',
    'Waits durably: a timer recorded in the log, resumed by the scheduler (a restart does not lose it).',
    z.strictObject({ ms: z.number().int().min(1).max(MAX_SLEEP_MS).describe('how long to wait, in milliseconds') }),
  ),
  op(
    'trigger',
    `Runs another flow of the site with a payload; flows starting flows stop ${MAX_TRIGGER_DEPTH} levels deep.`,
    z.strictObject({
      flow: z.string().min(1).max(64).describe('the id of the flow to run'),
      payload: z.unknown().optional().describe('its input; strings may hold templates'),
    }),
  ),
  op(
    'throw',
    'Fails the step with a message: the run leaves by the reject edge, or fails when there is none.',
    z.strictObject({ message: Templated(2000, 'the failure message').default('flow stopped') }),
  ),
];

/** The operations a node may name, by key. */
export const OPERATIONS: ReadonlyMap<string, OperationSpec> = new Map(SPECS.map((s) => [s.key, s]));

export const isOperation = (key: string): boolean => OPERATIONS.has(key);
