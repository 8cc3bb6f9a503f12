import { describe, expect, it } from 'vitest';
import { budgetError, emptySpent, startRefusal, stepCost, stepRefusal } from './flow-budget.ts';
import type { FlowRunEvent } from '../../../contracts/flows/flow-run.events.ts';

const budget = { runs: 2, steps: 3, bytes: 10, breadth: 1 };

describe('flow run budget', () => {
  it('refuses a start once the tree started its runs, or the parent its breadth', () => {
    const s = emptySpent();
    expect(startRefusal(s, budget, 'root')).toBeNull();
    s.children.set('root', 1);
    expect(startRefusal(s, budget, 'root')).toBe('breadth');
    expect(startRefusal(s, budget, 'child')).toBeNull();
    s.runs = 2;
    expect(startRefusal(s, budget, 'child')).toBe('runs');
  });

  it('refuses a step once the tree recorded its steps or its bytes', () => {
    expect(stepRefusal({ ...emptySpent(), steps: 2, bytes: 9 }, budget)).toBeNull();
    expect(stepRefusal({ ...emptySpent(), steps: 3 }, budget)).toBe('steps');
    expect(stepRefusal({ ...emptySpent(), bytes: 10 }, budget)).toBe('bytes');
  });

  it("costs each recorded try one step and each output its JSON's UTF-8 bytes", () => {
    const base = { runId: 'r', nodeId: 'a', operation: 'log', input: null, attempt: 1, startedAt: '', at: '' };
    const events: FlowRunEvent[] = [
      { type: 'FlowStepCompleted', data: { ...base, output: { m: 'é' }, edge: 'resolve' } },
      { type: 'FlowStepFailed', data: { ...base, error: { code: 'X', message: 'x' }, final: false, retryAt: null } },
      { type: 'FlowRunSucceeded', data: { runId: 'r', at: '' } },
    ];
    expect(stepCost(events)).toEqual({ steps: 2, bytes: Buffer.byteLength('{"m":"é"}') });
  });

  it('names the part, its limit and the root in the error', () => {
    expect(budgetError('runs', budget, 'root')).toMatchObject({
      code: 'BUDGET_EXCEEDED',
      extensions: { budget: 'runs', limit: 2, rootRunId: 'root' },
    });
    expect(budgetError('steps', budget, 'root').message).toContain('SVC_FLOW_BUDGET_STEPS');
  });
});
