import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { findCycle, graphProblem } from './flow-graph.ts';
import type { FlowGraph } from '../../contracts/flows/flow.events.ts';

/** The reference: a graph is acyclic iff repeatedly removing nodes without incoming edges empties it (small graphs). */
function hasCycleReference(ids: string[], edges: { from: string; to: string }[]): boolean {
  let left = new Set(ids);
  for (;;) {
    const sources = [...left].filter((id) => !edges.some((e) => e.to === id && left.has(e.from)));
    if (!sources.length) return left.size > 0;
    left = new Set([...left].filter((id) => !sources.includes(id)));
  }
}

const smallGraph = fc.integer({ min: 1, max: 8 }).chain((size) => {
  const ids = Array.from({ length: size }, (_, i) => `n${i}`);
  const id = fc.constantFrom(...ids);
  return fc.record({ ids: fc.constant(ids), edges: fc.array(fc.record({ from: id, to: id }), { maxLength: 16 }) });
});

const isEdge = (edges: { from: string; to: string }[], from: string, to: string) =>
  edges.some((e) => e.from === from && e.to === to);

describe('findCycle (Kahn)', () => {
  it('finds a cycle exactly when one exists, and the one it names is real', () => {
    fc.assert(
      fc.property(smallGraph, ({ ids, edges }) => {
        const cycle = findCycle(ids, edges);
        expect(cycle !== null).toBe(hasCycleReference(ids, edges));
        if (!cycle) return;
        cycle.forEach((from, i) => expect(isEdge(edges, from, cycle[(i + 1) % cycle.length]!)).toBe(true));
        expect(new Set(cycle).size).toBe(cycle.length);
      }),
      { numRuns: 500 },
    );
  });

  it('finds a self-loop', () => {
    expect(
      findCycle(
        ['a', 'b'],
        [
          { from: 'a', to: 'b' },
          { from: 'b', to: 'b' },
        ],
      ),
    ).toEqual(['b']);
  });

  it('runs without recursion on a chain of 20 000 nodes and on a long cycle', () => {
    const ids = Array.from({ length: 20_000 }, (_, i) => `n${i}`);
    const edges = ids.slice(1).map((to, i) => ({ from: ids[i]!, to }));
    expect(findCycle(ids, edges)).toBeNull();
    const cycle = findCycle(ids, [...edges, { from: ids.at(-1)!, to: ids[0]! }]);
    expect(cycle).toHaveLength(20_000);
    expect(cycle![0]).toBe('n0');
  });
});

describe('graphProblem', () => {
  const known = (k: string) => k === 'log';
  const g = (nodes: string[], edges: [string, string, ('resolve' | 'reject')?][], op = 'log'): FlowGraph => ({
    nodes: nodes.map((id) => ({ id, operation: op, options: {} })),
    edges: edges.map(([from, to, on]) => ({ from, to, on: on ?? 'resolve' })),
  });

  it('accepts a chain with branches by resolve and reject', () => {
    expect(
      graphProblem(
        g(
          ['a', 'b', 'c'],
          [
            ['a', 'b'],
            ['a', 'c', 'reject'],
          ],
        ),
        known,
      ),
    ).toBeNull();
  });

  it('names each problem at its node, in a fixed order', () => {
    expect(graphProblem(g(['a'], [], 'x'), known)).toMatchObject({ code: 'GRAPH_UNKNOWN_OPERATION', nodeId: 'a' });
    expect(graphProblem(g(['a'], [['a', 'z']]), known)).toMatchObject({ code: 'GRAPH_DANGLING_EDGE', nodeId: 'z' });
    expect(
      graphProblem(
        g(
          ['a', 'b', 'c'],
          [
            ['a', 'b'],
            ['a', 'c'],
          ],
        ),
        known,
      ),
    ).toMatchObject({
      code: 'DUPLICATE_EDGE',
      nodeId: 'a',
    });
    expect(
      graphProblem(
        g(
          ['a', 'b'],
          [
            ['b', 'a'],
            ['a', 'b'],
          ],
        ),
        known,
      ),
    ).toMatchObject({ code: 'GRAPH_CYCLE', nodeId: 'a' });
    expect(graphProblem(g([], []), known)).toMatchObject({ code: 'GRAPH_NO_ENTRY', nodeId: null });
    expect(graphProblem(g(['a', 'b'], []), known)).toMatchObject({ code: 'GRAPH_NO_ENTRY', nodeId: 'b' });
  });

  it('treats node ids named like object members as plain names', () => {
    const graph = g(['toString', 'hasOwnProperty'], [['toString', 'hasOwnProperty']]);
    expect(graphProblem(graph, known)).toBeNull();
    expect(graphProblem(g(['valueOf'], [['valueOf', 'constructor']]), known)).toMatchObject({
      code: 'GRAPH_DANGLING_EDGE',
      nodeId: 'constructor',
    });
  });
});
