import type { DomainEvent, StoredEvent } from './event.ts';
import type { EventStore } from './event-store.ts';
import type { StoredEventOf } from './projector.ts';

/**
 * Calls `listener` with the committed events of the types `handles` names, each typed as its own event of `E` (given
 * explicitly, as projectors give theirs): a renamed event field then fails the type check instead of reading
 * undefined. In this process only, like `onAppended`; returns the unsubscribe function.
 */
export function onEvents<E extends DomainEvent = never>(
  store: Pick<EventStore, 'onAppended'>,
  handles: readonly E['type'][],
  listener: (events: readonly StoredEventOf<E>[]) => void,
): () => void {
  const types = new Set<string>(handles);
  return store.onAppended((events) => {
    // Only events whose type `handles` names pass, which are E's events.
    const mine = events.filter((e) => types.has(e.type)) as unknown as StoredEventOf<E>[];
    if (mine.length) listener(mine);
  });
}

/** The first of a command's stored events of type `type`, typed as that event; undefined when there is none. */
export function firstOfType<E extends DomainEvent, T extends E['type']>(
  events: readonly StoredEvent<E>[],
  type: T,
): StoredEventOf<Extract<E, { type: T }>> | undefined {
  // A stored event of type T carries T's data: the one place the pairing is asserted.
  return events.find((e) => e.type === type) as StoredEventOf<Extract<E, { type: T }>> | undefined;
}

/** A command's stored events of type `type`, typed as that event. */
export function ofType<E extends DomainEvent, T extends E['type']>(
  events: readonly StoredEvent<E>[],
  type: T,
): StoredEventOf<Extract<E, { type: T }>>[] {
  return events.filter((e) => e.type === type) as StoredEventOf<Extract<E, { type: T }>>[];
}

/** Whether a stored event is of type `type`, narrowing it to that event (its data typed with it). */
export function isOfType<E extends DomainEvent, T extends E['type']>(
  e: StoredEvent<E>,
  type: T,
): e is StoredEvent<E> & StoredEventOf<Extract<E, { type: T }>> {
  return e.type === type;
}

/** A stored event as its domain event (its type and data, which belong together), for a decider's `evolve`. */
export const domainEvent = <E extends DomainEvent>(e: StoredEvent<E>): E => ({ type: e.type, data: e.data }) as E;
