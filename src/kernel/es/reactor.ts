import type { ActorRef, DomainEvent, EventMetadata, StoredEvent } from './event.ts';
import type { StoredEventOf } from './projector.ts';

/**
 * A process manager as the runner holds it, its types erased: the events it reacts to, and what it does with one.
 * `handle` is called at least once per event (again after a crash before its checkpoint moved), so what it sends
 * must be idempotent; the reactors of this service read the log's answer first (a publish already done is not
 * done twice).
 */
export interface Reactor {
  name: string;
  /** Every type it is handed: those it reacts to and those it only observes. */
  handles: readonly string[];
  handle(event: StoredEvent): Promise<void>;
  /** Forget what was kept in memory: events may have passed by this node (another node led meanwhile). */
  reset?(): void;
}

/** What a slice declares: read what it needs, decide purely, send each command. */
export interface ReactorSpec<E extends DomainEvent, S, C> {
  /** Names its checkpoint: renaming a reactor starts it again from the head of the log. */
  name: string;
  /** A misspelt type fails to compile. */
  handles: readonly E['type'][];
  /** What the reactor needs to know about the event's subject now (a read model row, a folded stream). */
  load(event: StoredEventOf<E>): Promise<S>;
  /** Pure `(event, state) → commands`: no clock, no I/O, so it is tested without a database. */
  react(event: StoredEventOf<E>, state: S): readonly C[];
  /**
   * Sends one command on behalf of the person behind the event (never with more rights than theirs). A refusal
   * the command's decider makes is an answer, recorded by the command itself; what it throws is retried.
   */
  send(command: C, event: StoredEventOf<E>): Promise<void>;
  /**
   * Types it only watches, in log order with the others, to keep what it holds in memory current (a site's flows,
   * its webhooks): `observe` is called for each, and no command follows.
   */
  observes?: readonly string[];
  observe?(event: StoredEvent): void;
  /** Forget what `observe` kept: the feed calls it when events may have passed by (another node led meanwhile). */
  reset?(): void;
}

/** Declares a reactor over the events `E` (given explicitly), erased for the runner's one list. */
export function defineReactor<E extends DomainEvent = never, S = unknown, C = unknown>(
  spec: ReactorSpec<E, S, C>,
): Reactor {
  const reacts = new Set<string>(spec.handles);
  const observed = (spec.observes ?? []).filter((t) => !reacts.has(t));
  return {
    name: spec.name,
    handles: [...spec.handles, ...observed],
    ...(spec.reset ? { reset: spec.reset } : {}),
    handle: async (stored) => {
      if (!reacts.has(stored.type)) return spec.observe?.(stored);
      // Past the check above, the event's type is one `handles` names: one of E's events.
      const event = stored as StoredEventOf<E>;
      const commands = spec.react(event, await spec.load(event));
      for (const command of commands) await spec.send(command, event);
    },
  };
}

/**
 * The metadata of what a reactor writes in answer to an event: its own actor, the event's correlation, caused by
 * that event, at `now`.
 */
export const reactionMetadata = (e: StoredEvent, actor: ActorRef, now: Date): EventMetadata => ({
  siteId: e.siteId,
  actor,
  correlationId: e.metadata.correlationId,
  causationId: e.eventId,
  requestId: null,
  occurredAt: now.toISOString(),
});
