import type { EdgeKind, FlowGraph } from '../../contracts/flows/flow.events.ts';

/** Limits of one flow (README "Flows"): bounded work on every save, whatever a request sends. */
export const FLOW_LIMITS = {
  nodes: 500,
  /** Each node has at most one resolve and one reject edge. */
  edges: 1000,
  /** The JSON text of one node's options. */
  optionBytes: 16_384,
  /** The JSON text of a flow's triggerOptions and of its options. */
  flowOptionBytes: 16_384,
} as const;

/** A node id: a letter, then letters, digits, `_` or `-` (64 at most); never a name objects inherit. */
export const NODE_ID_PATTERN = /^[A-Za-z][A-Za-z0-9_-]{0,63}$/;

export type GraphCode = 'GRAPH_NO_ENTRY' | 'GRAPH_DANGLING_EDGE' | 'GRAPH_CYCLE' | 'GRAPH_UNKNOWN_OPERATION';

/** The first thing wrong with a graph, at a node (null when the graph has no node to name). */
export interface GraphProblem {
  code: GraphCode | 'DUPLICATE_EDGE';
  nodeId: string | null;
  message: string;
  path: string[];
  extensions?: Record<string, unknown>;
}

interface Arc {
  from: string;
  to: string;
}

/**
 * A cycle of the graph, found with Kahn's algorithm (no recursion: a graph of any size costs O(nodes + edges) and
 * a constant stack): the nodes never freed of incoming edges contain a cycle, which a walk back along their
 * still-unfreed predecessors closes. Null when the graph is acyclic. Edges must name nodes of `nodeIds`.
 */
export function findCycle(nodeIds: readonly string[], edges: readonly Arc[]): string[] | null {
  const indegree = new Map<string, number>(nodeIds.map((id) => [id, 0]));
  const out = new Map<string, string[]>(nodeIds.map((id) => [id, []]));
  for (const e of edges) {
    out.get(e.from)!.push(e.to);
    indegree.set(e.to, indegree.get(e.to)! + 1);
  }
  const queue = nodeIds.filter((id) => indegree.get(id) === 0);
  for (let i = 0; i < queue.length; i++) {
    for (const next of out.get(queue[i]!)!) {
      const d = indegree.get(next)! - 1;
      indegree.set(next, d);
      if (d === 0) queue.push(next);
    }
  }
  if (queue.length === nodeIds.length) return null;
  // Every node left has a predecessor that is left too: walking back from one must meet a node twice.
  const pred = new Map<string, string>();
  for (const e of edges)
    if (indegree.get(e.from)! > 0 && indegree.get(e.to)! > 0 && !pred.has(e.to)) pred.set(e.to, e.from);
  const seen = new Map<string, number>();
  const walk: string[] = [];
  let at = nodeIds.find((id) => indegree.get(id)! > 0)!;
  while (!seen.has(at)) {
    seen.set(at, walk.length);
    walk.push(at);
    at = pred.get(at)!;
  }
  // Reported from the cycle's node that comes first in the graph, so one graph always gives one answer.
  const cycle = walk.slice(seen.get(at)).reverse();
  const order = new Map(nodeIds.map((id, i) => [id, i]));
  const first = cycle.reduce((best, id, i) => (order.get(id)! < order.get(cycle[best]!)! ? i : best), 0);
  return [...cycle.slice(first), ...cycle.slice(0, first)];
}

/** The node a run starts at: the one node no edge leads to (null unless there is exactly one). */
export function entryNodes(graph: FlowGraph): string[] {
  const targets = new Set(graph.edges.map((e) => e.to));
  return graph.nodes.filter((n) => !targets.has(n.id)).map((n) => n.id);
}

/** The node a step leads to when it leaves by `on`, or null (the run ends there). */
export function successor(graph: FlowGraph, nodeId: string, on: EdgeKind): string | null {
  return graph.edges.find((e) => e.from === nodeId && e.on === on)?.to ?? null;
}

const quote = (s: string) => JSON.stringify(s);

/**
 * Whether an active flow's graph can run, checked in a fixed order so one graph always gives one answer: unknown
 * operations, edges to missing nodes, a second edge of one kind from one node, cycles (self-loops included), then
 * exactly one entry node. Node ids are assumed unique (checked before, whatever the status).
 */
export function graphProblem(graph: FlowGraph, isOperation: (key: string) => boolean): GraphProblem | null {
  for (const [i, n] of graph.nodes.entries())
    if (!isOperation(n.operation))
      return {
        code: 'GRAPH_UNKNOWN_OPERATION',
        nodeId: n.id,
        message: `node ${quote(n.id)}: unknown operation ${quote(n.operation)} (GET /api/v1/flows/operations lists them)`,
        path: ['graph', 'nodes', String(i), 'operation'],
      };
  const ids = new Set(graph.nodes.map((n) => n.id));
  const leaving = new Set<string>();
  for (const [i, e] of graph.edges.entries()) {
    for (const end of ['from', 'to'] as const)
      if (!ids.has(e[end]))
        return {
          code: 'GRAPH_DANGLING_EDGE',
          nodeId: e[end],
          message: `edge ${i} leads ${end} ${quote(e[end])}, which is not a node of the graph`,
          path: ['graph', 'edges', String(i), end],
        };
    const key = `${e.from}\u0000${e.on}`;
    if (leaving.has(key))
      return {
        code: 'DUPLICATE_EDGE',
        nodeId: e.from,
        message: `node ${quote(e.from)} has more than one ${e.on} edge`,
        path: ['graph', 'edges', String(i)],
      };
    leaving.add(key);
  }
  const cycle = findCycle(
    graph.nodes.map((n) => n.id),
    graph.edges,
  );
  if (cycle)
    return {
      code: 'GRAPH_CYCLE',
      nodeId: cycle[0]!,
      message: `the graph has a cycle through ${cycle.slice(0, 10).map(quote).join(' → ')}`,
      path: ['graph', 'edges'],
      extensions: { cycle: cycle.slice(0, 50) },
    };
  const entries = entryNodes(graph);
  if (entries.length !== 1)
    return {
      code: 'GRAPH_NO_ENTRY',
      nodeId: entries[1] ?? null,
      message: entries.length
        ? `a flow starts at one node, but ${entries.length} nodes have no edge leading to them`
        : 'the graph has no node to start from',
      path: ['graph', 'nodes'],
      extensions: { entries: entries.slice(0, 50) },
    };
  return null;
}
