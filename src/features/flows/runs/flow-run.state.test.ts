import { describe, expect, it } from 'vitest';
import type { FlowRunEvent } from '../../../contracts/flows/flow-run.events.ts';
import { evolveRun, initialRunState, nextAction, type RunState } from './flow-run.state.ts';

const at = '2026-01-01T00:00:00.000Z';
const graph = {
  nodes: [
    { id: 'a', operation: 'log', options: {} },
    { id: 'b', operation: 'log', options: {} },
    { id: 'c', operation: 'log', options: {} },
  ],
  edges: [
    { from: 'a', to: 'b', on: 'resolve' as const },
    { from: 'a', to: 'c', on: 'reject' as const },
  ],
};
const started: FlowRunEvent = {
  type: 'FlowRunStarted',
  data: {
    runId: 'r',
    flowId: 'f',
    flowVersion: 1,
    graph,
    runAs: 'editor',
    trigger: 'manual',
    input: { x: 1 },
    depth: 0,
    at,
  },
};
const step = { runId: 'r', operation: 'log', input: {}, attempt: 1, startedAt: at, at };
const fold = (events: FlowRunEvent[]): RunState => events.reduce(evolveRun, initialRunState());
const now = new Date(at);

describe('a run', () => {
  it('starts at the entry node with $last = its input', () => {
    const s = fold([started]);
    expect(s.last).toEqual({ x: 1 });
    expect(nextAction(s, now)).toMatchObject({ kind: 'step', node: { id: 'a' }, attempt: 1 });
  });

  it('goes on after a completed step and never offers it again', () => {
    const s = fold([
      started,
      { type: 'FlowStepCompleted', data: { ...step, nodeId: 'a', output: 1, edge: 'resolve' } },
    ]);
    expect(nextAction(s, now)).toMatchObject({ kind: 'step', node: { id: 'b' } });
  });

  it('waits for a retry, then offers the next try', () => {
    const retryAt = '2026-01-01T00:00:01.000Z';
    const error = { code: 'X', message: 'x' };
    const s = fold([started, { type: 'FlowStepFailed', data: { ...step, nodeId: 'a', error, final: false, retryAt } }]);
    expect(nextAction(s, now)).toEqual({ kind: 'wait', until: retryAt });
    expect(nextAction(s, new Date(retryAt))).toMatchObject({ kind: 'step', node: { id: 'a' }, attempt: 2 });
  });

  it('leaves a final failure by the reject edge, or fails without one', () => {
    const error = { code: 'X', message: 'x' };
    const failA = { ...step, nodeId: 'a', error, final: true, retryAt: null };
    const s = fold([started, { type: 'FlowStepFailed', data: failA }]);
    expect(nextAction(s, now)).toMatchObject({ kind: 'step', node: { id: 'c' } });
    expect(s.last).toEqual({ error });
    const failB = { ...step, nodeId: 'b', error, final: true, retryAt: null };
    const t = fold([
      started,
      { type: 'FlowStepCompleted', data: { ...step, nodeId: 'a', output: 1, edge: 'resolve' } },
      { type: 'FlowStepFailed', data: failB },
    ]);
    expect(nextAction(t, now)).toEqual({ kind: 'fail', nodeId: 'b', error });
  });

  it('succeeds where no edge leads on, and does nothing once ended', () => {
    const s = fold([
      started,
      { type: 'FlowStepCompleted', data: { ...step, nodeId: 'a', output: 1, edge: 'resolve' } },
      { type: 'FlowStepCompleted', data: { ...step, nodeId: 'b', output: 2, edge: 'resolve' } },
    ]);
    expect(nextAction(s, now)).toEqual({ kind: 'succeed' });
    expect(nextAction(evolveRun(s, { type: 'FlowRunSucceeded', data: { runId: 'r', at } }), now)).toEqual({
      kind: 'none',
    });
  });

  it('wakes a sleeping run only once its timer has passed', () => {
    const until = '2026-01-02T00:00:00.000Z';
    const s = fold([started, { type: 'FlowRunSleeping', data: { runId: 'r', nodeId: 'a', until, at } }]);
    expect(nextAction(s, now)).toEqual({ kind: 'wait', until });
    expect(nextAction(s, new Date(until))).toMatchObject({ kind: 'wake', node: { id: 'a' } });
  });
});
