import type { DomainEvent } from './event.ts';

/** A pure aggregate: no I/O, no clock; time, ids and actor arrive in the command. */
export interface Decider<S, C, E extends DomainEvent> {
  initialState(): S;
  evolve(state: S, event: E): S;
  /** Returns the events the command produces, or throws a DomainError. */
  decide(command: C, state: S): E[];
}

export function fold<S, C, E extends DomainEvent>(decider: Decider<S, C, E>, events: Iterable<E>, from?: S): S {
  let s = from ?? decider.initialState();
  for (const e of events) s = decider.evolve(s, e);
  return s;
}

export function assertNever(x: never): never {
  throw new Error(`unexpected ${JSON.stringify(x)}`);
}
