import { expect } from 'vitest';
import type { Decider } from '../../src/kernel/es/decider.ts';
import type { DomainEvent } from '../../src/kernel/es/event.ts';
import { DomainError } from '../../src/kernel/http/errors.ts';

/** given(events).when(command).then(events) | .thenThrows(code): a decider specification. */
export function deciderSpec<S, C, E extends DomainEvent>(decider: Decider<S, C, E>) {
  return (given: E[]) => ({
    when: (command: C) => {
      const run = () => decider.decide(command, given.reduce(decider.evolve, decider.initialState()));
      return {
        then: (expected: E[]) => expect(run()).toEqual(expected),
        thenThrows: (code: string) => {
          try {
            run();
          } catch (err) {
            expect(err).toBeInstanceOf(DomainError);
            expect((err as DomainError).code).toBe(code);
            return;
          }
          throw new Error(`expected ${code}, but the command was accepted`);
        },
      };
    },
  });
}

/**
 * Decides each command in turn against the folded state, skipping rejected ones; returns the state reached
 * step by step and the events accepted. Folding those events from scratch must give the same state.
 */
export function runCommands<S, C, E extends DomainEvent>(
  decider: Decider<S, C, E>,
  commands: C[],
): { state: S; events: E[] } {
  let state = decider.initialState();
  const events: E[] = [];
  for (const c of commands) {
    let out: E[];
    try {
      out = decider.decide(c, state);
    } catch (err) {
      if (err instanceof DomainError) continue;
      throw err;
    }
    for (const e of out) state = decider.evolve(state, e);
    events.push(...out);
  }
  return { state, events };
}
