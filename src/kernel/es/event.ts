/** Who caused a change; recorded on every event. */
export type ActorType = 'user' | 'apiKey' | 'system' | 'flow' | 'agent' | 'scheduler' | 'gitops';
export interface ActorRef {
  type: ActorType;
  id: string;
  /** Set when an impersonating admin acts as `id`. */
  onBehalfOf?: string;
}

/** Metadata stored with every event (DESIGN §3). */
export interface EventMetadata {
  siteId: string;
  actor: ActorRef;
  correlationId: string;
  causationId: string | null;
  requestId: string | null;
  occurredAt: string;
}

/** An event as a decider emits it: a past-tense type and a JSON payload. */
export interface DomainEvent<T extends string = string, D = unknown> {
  type: T;
  data: D;
}

/** An event about to be appended. */
export interface NewEvent<E extends DomainEvent = DomainEvent> {
  type: E['type'];
  data: E['data'];
  eventId?: string;
  schemaVersion?: number;
  metadata: EventMetadata;
}

/** An event read back from the store. */
export interface StoredEvent<E extends DomainEvent = DomainEvent> {
  type: E['type'];
  data: E['data'];
  eventId: string;
  schemaVersion: number;
  metadata: EventMetadata;
  streamId: string;
  siteId: string;
  streamVersion: number;
  globalPosition: bigint;
  /** Adapter-specific, opaque position in the global order; pass it back as `after`. */
  checkpoint: string;
  createdAt: Date;
}
