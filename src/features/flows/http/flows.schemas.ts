import { z } from 'zod';
import { EDGE_KINDS, FLOW_STATUSES, FLOW_TRIGGERS } from '../../../contracts/flows/flow.events.ts';
import { FLOW_LIMITS } from '../flow-graph.ts';
import { pathId } from '../../../kernel/http/path-params.ts';

const JsonObject = z.record(z.string(), z.unknown());

const Node = z.strictObject({
  id: z.string().min(1).max(64).describe('unique in the graph: a letter, then letters, digits, _ or -'),
  operation: z.string().min(1).max(64).describe('a key of GET /api/v1/flows/operations'),
  options: JsonObject.default({}).describe("the operation's options"),
});
const Edge = z.strictObject({
  from: z.string().min(1).max(64),
  to: z.string().min(1).max(64),
  on: z.enum(EDGE_KINDS).default('resolve'),
});
const Graph = z
  .strictObject({
    nodes: z.array(Node).max(FLOW_LIMITS.nodes).default([]),
    edges: z.array(Edge).max(FLOW_LIMITS.edges).default([]),
  })
  .meta({ id: 'FlowGraph' });

const fields = {
  name: z.string().trim().min(1).max(200),
  description: z.string().max(2000).nullable(),
  status: z.enum(FLOW_STATUSES),
  trigger: z.enum(FLOW_TRIGGERS),
  triggerOptions: JsonObject.describe('schedule: { cron } (5 fields, UTC); event: { events, collections? }'),
  graph: Graph,
  runAs: z.string().min(1).max(64).describe("a role of the site (key or id): the flow's writes use its permissions"),
  options: JsonObject,
};

/** POST /flows: name and trigger are required; a flow starts as a draft that runs as the caller's role. */
export const FlowCreateBody = z
  .strictObject({
    ...fields,
    description: fields.description.default(null),
    status: fields.status.default('draft'),
    triggerOptions: fields.triggerOptions.default({}),
    graph: Graph.default({ nodes: [], edges: [] }),
    runAs: fields.runAs.optional(),
    options: fields.options.default({}),
  })
  .meta({ id: 'FlowCreate' });
export type FlowCreate = z.infer<typeof FlowCreateBody>;

/** PATCH /flows/:id: the keys given replace the saved ones (graph whole); the result is validated like a create. */
export const FlowPatchBody = z
  .strictObject({
    name: fields.name.optional(),
    description: fields.description.optional(),
    status: fields.status.optional(),
    trigger: fields.trigger.optional(),
    triggerOptions: fields.triggerOptions.optional(),
    graph: Graph.optional(),
    runAs: fields.runAs.optional(),
    options: fields.options.optional(),
  })
  .meta({ id: 'FlowPatch' });
export type FlowPatch = z.infer<typeof FlowPatchBody>;

/** A flow as the API shows it; its webhook token never, only whether it has one. */
export const FlowRecordBody = z
  .object({
    id: z.string(),
    ...fields,
    nextRunAt: z.string().nullable().describe('the next firing of an active schedule flow'),
    hasToken: z.boolean(),
    version: z.number().int().describe("the flow stream's version (If-Match)"),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .meta({ id: 'Flow' });

export const FlowParams = z.object({ id: pathId(64) });

export const FlowListQuery = z.object({
  status: z.enum(FLOW_STATUSES).optional(),
  trigger: z.enum(FLOW_TRIGGERS).optional(),
  sort: z.enum(['name', '-name', 'createdAt', '-createdAt', 'updatedAt', '-updatedAt']).default('name'),
  page: z.coerce.number().int().min(1).max(1_000_000).default(1),
  limit: z.coerce.number().int().min(1).max(200).default(25),
});
export const FlowListMeta = z.object({ total: z.number().int(), page: z.number().int(), pageSize: z.number().int() });

export const FlowDetailQuery = z.object({
  asOf: z.string().max(64).optional().describe('ISO 8601 time: the flow as it was then'),
  version: z.coerce.number().int().min(1).optional().describe('the flow as of its n-th event'),
});

/** One save of a flow, read from its stream: the flow after it, what changed, who and when. */
export const FlowRevisionBody = z
  .object({
    version: z.number().int(),
    action: z.enum(['create', 'update', 'delete', 'token']),
    changed: z.array(z.string()),
    data: FlowRecordBody,
    actor: z.object({ type: z.string(), id: z.string() }),
    timestamp: z.string(),
  })
  .meta({ id: 'FlowRevision' });
export const RevisionQuery = z.object({
  limit: z.coerce.number().int().min(1).max(200).default(25),
  offset: z.coerce.number().int().min(0).max(1_000_000).default(0),
});
export const RevisionListMeta = z.object({
  total: z.number().int(),
  limit: z.number().int(),
  offset: z.number().int(),
});

export const OperationBody = z
  .object({
    key: z.string(),
    hint: z.string(),
    edges: z.array(z.enum(EDGE_KINDS)),
    options: JsonObject.describe('the JSON Schema of its options'),
  })
  .meta({ id: 'FlowOperation' });

export const FlowTokenBody = z
  .object({ token: z.string().describe('the webhook token (x-flow-token), shown only in this answer') })
  .meta({ id: 'FlowToken' });
