import { z } from 'zod';
import { callerKeyProblem } from '../../platform/http/caller-key.ts';
import { own } from '../../kernel/safe/keys.ts';
import { checkCron } from './flow-cron.ts';
import { FLOW_LIMITS, graphProblem, NODE_ID_PATTERN, type GraphProblem } from './flow-graph.ts';
import { templateRefs, TEMPLATE_LIMITS } from './flow-template.ts';
import { compileCondition } from './flow-condition.ts';
import { OPERATIONS, isOperation } from './operations/registry.ts';
import {
  CronInvalid,
  CronRequired,
  FlowInvalid,
  GraphCycle,
  GraphDanglingEdge,
  GraphInvalid,
  GraphNoEntry,
  GraphUnknownOperation,
} from './flow.errors.ts';
import type { FlowDefinition, FlowTrigger } from '../../contracts/flows/flow.events.ts';

/** The events of the log an event-triggered flow may listen to: item changes and release publishes. */
export const FLOW_ITEM_EVENTS = ['items.create', 'items.update', 'items.delete', 'release.published'] as const;

const Collection = z.string().regex(/^[A-Za-z][A-Za-z0-9_]{0,63}$/);
/** triggerOptions per trigger (checked whatever the status): unknown keys are refused. */
export const TRIGGER_OPTIONS: ReadonlyMap<FlowTrigger, z.ZodType> = new Map<FlowTrigger, z.ZodType>([
  ['schedule', z.strictObject({ cron: z.string().max(200).optional() })],
  [
    'event',
    z.strictObject({
      events: z.array(z.enum(FLOW_ITEM_EVENTS)).max(4).optional(),
      collections: z.array(Collection).max(100).nullable().optional(),
    }),
  ],
  ['webhook', z.strictObject({})],
  ['manual', z.strictObject({})],
]);

const bytes = (v: unknown) => JSON.stringify(v ?? null).length;
const invalid = (message: string, path: string[], reason: string, nodeId?: string) =>
  new FlowInvalid({ message, path, reason, ...(nodeId === undefined ? {} : { nodeId }) });

/** What every save must satisfy, draft or not: sizes, node ids, and triggerOptions of the trigger's shape. */
function checkStructure(def: FlowDefinition): void {
  const { nodes, edges } = def.graph;
  if (nodes.length > FLOW_LIMITS.nodes)
    throw invalid(`a flow has at most ${FLOW_LIMITS.nodes} nodes`, ['graph', 'nodes'], 'too_many_nodes');
  if (edges.length > FLOW_LIMITS.edges)
    throw invalid(`a flow has at most ${FLOW_LIMITS.edges} edges`, ['graph', 'edges'], 'too_many_edges');
  const ids = new Set<string>();
  for (const [i, n] of nodes.entries()) {
    const at = ['graph', 'nodes', String(i)];
    if (!NODE_ID_PATTERN.test(n.id) || callerKeyProblem(n.id))
      throw invalid('a node id is a letter, then letters, digits, _ or - (64 at most)', [...at, 'id'], 'node_id');
    if (ids.has(n.id)) throw invalid(`node id ${n.id} appears twice`, [...at, 'id'], 'duplicate_node', n.id);
    ids.add(n.id);
    if (bytes(n.options) > FLOW_LIMITS.optionBytes)
      throw invalid(
        `a node's options are at most ${FLOW_LIMITS.optionBytes} bytes of JSON`,
        [...at, 'options'],
        'too_large',
        n.id,
      );
  }
  for (const part of ['triggerOptions', 'options'] as const)
    if (bytes(def[part]) > FLOW_LIMITS.flowOptionBytes)
      throw invalid(`${part} is at most ${FLOW_LIMITS.flowOptionBytes} bytes of JSON`, [part], 'too_large');
  const parsed = TRIGGER_OPTIONS.get(def.trigger)!.safeParse(def.triggerOptions);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw invalid(`triggerOptions: ${issue.message}`, ['triggerOptions', ...issue.path.map(String)], 'trigger_options');
  }
}

function graphError(p: GraphProblem): Error {
  const d = {
    nodeId: p.nodeId,
    message: p.message,
    path: p.path,
    ...(p.extensions ? { extensions: p.extensions } : {}),
  };
  switch (p.code) {
    case 'GRAPH_NO_ENTRY':
      return new GraphNoEntry(d);
    case 'GRAPH_DANGLING_EDGE':
      return new GraphDanglingEdge(d);
    case 'GRAPH_CYCLE':
      return new GraphCycle(d);
    case 'GRAPH_UNKNOWN_OPERATION':
      return new GraphUnknownOperation(d);
    case 'DUPLICATE_EDGE':
      return new GraphInvalid({ ...d, reason: 'duplicate_edge' });
  }
}

/** Each node's options against its operation, and every {{ path }} and condition key naming a node of the graph. */
function checkNodes(def: FlowDefinition): void {
  const ids = new Set(def.graph.nodes.map((n) => n.id));
  for (const [i, n] of def.graph.nodes.entries()) {
    const at = ['graph', 'nodes', String(i), 'options'];
    const spec = OPERATIONS.get(n.operation)!;
    const parsed = spec.options.safeParse(n.options);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      const path = [...at, ...issue.path.map(String)];
      throw new GraphInvalid({ nodeId: n.id, message: `node ${n.id}: ${issue.message}`, path, reason: 'options' });
    }
    const problem = spec.check?.(n.options);
    if (problem)
      throw new GraphInvalid({
        nodeId: n.id,
        message: `node ${n.id}: ${problem.message}`,
        path: [...at, ...problem.path],
        reason: 'options',
      });
    const { refs, depth } = templateRefs(n.options);
    if (depth > TEMPLATE_LIMITS.depth)
      throw new GraphInvalid({
        nodeId: n.id,
        message: `node ${n.id}: options nest at most ${TEMPLATE_LIMITS.depth} levels`,
        path: at,
        reason: 'too_deep',
      });
    const heads = refs.map((r) => ({ at: r.at, expr: r.expr, head: r.path?.head ?? null }));
    if (n.operation === 'condition')
      for (const p of compileCondition(own(n.options, 'filter')).paths)
        heads.push({ at: ['filter'], expr: p.head, head: p.head });
    for (const r of heads) {
      if (r.head === null)
        throw new GraphInvalid({
          nodeId: n.id,
          message: `node ${n.id}: {{ ${r.expr.slice(0, 100)} }} is not a path of $trigger, $last or a node`,
          path: [...at, ...r.at],
          reason: 'template',
        });
      if (!r.head.startsWith('$') && !ids.has(r.head))
        throw new GraphInvalid({
          nodeId: n.id,
          message: `node ${n.id}: ${r.head} is not a node of the graph`,
          path: [...at, ...r.at],
          reason: 'unknown_node',
          extensions: { ref: r.head },
        });
    }
  }
}

/**
 * Checks a flow before it is saved, and gives the next firing of an active schedule flow. Every save: structure
 * (sizes, node ids, triggerOptions) and a cron when one is given. An active flow also: the graph (unknown operations,
 * dangling edges, cycles, one entry), each node's options, template and condition paths, a cron for a schedule
 * and at least one event for an event trigger. A draft or inactive flow may be work in progress.
 */
export function validateFlow(def: FlowDefinition, now: Date): { nextRunAt: string | null } {
  checkStructure(def);
  const cron = def.trigger === 'schedule' ? (own(def.triggerOptions, 'cron') as string | undefined) : undefined;
  const fires = cron === undefined ? null : checkCron(cron, now);
  if (fires && !fires.ok) throw new CronInvalid({ cron: cron!, reason: fires.reason });
  if (def.status !== 'active') return { nextRunAt: null };
  const problem = graphProblem(def.graph, isOperation);
  if (problem) throw graphError(problem);
  checkNodes(def);
  if (def.trigger === 'schedule' && !fires) throw new CronRequired();
  const events = own(def.triggerOptions, 'events') as unknown[] | undefined;
  if (def.trigger === 'event' && !events?.length)
    throw invalid('an active event flow needs triggerOptions.events', ['triggerOptions', 'events'], 'required');
  return { nextRunAt: fires?.ok ? fires.nextRunAt.toISOString() : null };
}
