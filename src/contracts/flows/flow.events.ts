import type { DomainEvent } from '../../kernel/es/event.ts';

/** What starts a flow: an item event, a cron schedule, a signed webhook call, or a manual run. */
export const FLOW_TRIGGERS = ['event', 'schedule', 'webhook', 'manual'] as const;
export type FlowTrigger = (typeof FLOW_TRIGGERS)[number];

/** Only an active flow runs; a draft may be invalid; an inactive flow is valid or not, but never runs. */
export const FLOW_STATUSES = ['draft', 'active', 'inactive'] as const;
export type FlowStatus = (typeof FLOW_STATUSES)[number];

/** The edge a step leaves by: `resolve` when it succeeded (a condition held), `reject` when it failed. */
export const EDGE_KINDS = ['resolve', 'reject'] as const;
export type EdgeKind = (typeof EDGE_KINDS)[number];

/** One step of a flow: an operation of the registry and its options (JSON, keys as the request gave them). */
export interface FlowNode {
  id: string;
  operation: string;
  options: Record<string, unknown>;
}

export interface FlowEdge {
  from: string;
  to: string;
  on: EdgeKind;
}

export interface FlowGraph {
  nodes: FlowNode[];
  edges: FlowEdge[];
}

/** A flow as its author saved it: everything but its id, token and times. */
export interface FlowDefinition {
  name: string;
  description: string | null;
  status: FlowStatus;
  trigger: FlowTrigger;
  triggerOptions: Record<string, unknown>;
  graph: FlowGraph;
  /** The role whose permissions the flow's writes use (a system role key or a custom role id of the site). */
  runAs: string;
  options: Record<string, unknown>;
}

/** A flow was created; `nextRunAt` is the next firing of an active schedule flow (null otherwise). */
export type FlowCreated = DomainEvent<
  'FlowCreated',
  { flowId: string; definition: FlowDefinition; nextRunAt: string | null; at: string; by: string }
>;
/** A flow was saved again: the whole definition after the save, and the names of the keys that changed. */
export type FlowUpdated = DomainEvent<
  'FlowUpdated',
  {
    flowId: string;
    definition: FlowDefinition;
    changed: (keyof FlowDefinition)[];
    nextRunAt: string | null;
    at: string;
    by: string;
  }
>;
/** A flow was deleted: it never runs again, and its webhook token stops working. */
export type FlowDeleted = DomainEvent<'FlowDeleted', { flowId: string; at: string; by: string }>;
/** A new webhook token was issued for the flow: only its SHA-256 hash is recorded, the token is shown once. */
export type FlowTokenRotated = DomainEvent<
  'FlowTokenRotated',
  { flowId: string; tokenHash: string; at: string; by: string }
>;

/**
 * The schedule fired for `firedFor` (its run is `<flowId>@<firedFor>`); `nextRunAt` is the next firing after the
 * tick's time (firings missed while no node ran are not made up, the one due is run once).
 */
export type FlowScheduleAdvanced = DomainEvent<
  'FlowScheduleAdvanced',
  { flowId: string; firedFor: string; nextRunAt: string | null; at: string }
>;

export type FlowEvent = FlowCreated | FlowUpdated | FlowDeleted | FlowTokenRotated | FlowScheduleAdvanced;
export const FLOW_EVENT_TYPES = [
  'FlowCreated',
  'FlowUpdated',
  'FlowDeleted',
  'FlowTokenRotated',
  'FlowScheduleAdvanced',
] as const;

/** One stream per flow per site. */
export const flowStream = (siteId: string, flowId: string) => `${siteId}/flow/${flowId}`;
