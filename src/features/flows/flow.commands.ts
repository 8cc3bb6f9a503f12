import { createHash, randomBytes } from 'node:crypto';
import type { AppDeps } from '../../deps.ts';
import type { EventStore, ReadStreamOptions } from '../../kernel/es/event-store.ts';
import type { ActorRef } from '../../kernel/es/event.ts';
import { handleCommand, readState } from '../../kernel/es/handle-command.ts';
import type { CommandContext } from '../../kernel/http/command-meta.ts';
import { newId } from '../../kernel/ids.ts';
import type { FlowRecord } from '../../../projections/flows/index.ts';
import { DEFINITION_KEYS, flowDecider, type FlowCommand, type FlowEntry, type FlowState } from './flow.decider.ts';
import { FlowNotFound } from './flow.errors.ts';
import { flowStream, type FlowDefinition, type FlowEvent } from '../../contracts/flows/flow.events.ts';
import { checkRequestTargets } from './flow.targets.ts';
import { domainEvent } from '../../kernel/es/on-events.ts';

type Ctx = Pick<CommandContext, 'siteId' | 'now' | 'metadata' | 'actor' | 'expectedVersion'>;
type Deps = Pick<AppDeps, 'store' | 'config'>;

/** A folded flow as the API shows it (the token's hash stays behind). */
export const flowRecordOf = (f: FlowEntry, version: number): FlowRecord => ({
  id: f.id,
  ...f.definition,
  nextRunAt: f.nextRunAt,
  hasToken: f.tokenHash !== null,
  version,
  createdAt: f.createdAt,
  updatedAt: f.updatedAt,
});

/** The webhook token: 32 random bytes, so a plain SHA-256 of it is safe to keep (as API keys are). */
export function hashFlowToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

const meta = (ctx: Ctx, flowId: string) => ({ flowId, now: ctx.now.toISOString(), by: ctx.actor.id });

async function send(deps: Deps, ctx: Ctx, flowId: string, cmd: FlowCommand, fresh = false) {
  const opts = {
    metadata: ctx.metadata,
    ...(ctx.expectedVersion === undefined ? {} : { expectedVersion: ctx.expectedVersion }),
    ...(fresh ? { fresh } : {}),
  };
  const r = await handleCommand(deps.store, flowDecider, flowStream(ctx.siteId, flowId), cmd, opts);
  if (r.state.status === 'absent') throw new FlowNotFound({ flowId });
  return flowRecordOf(r.state.flow, r.version);
}

/** A flow's current state from its stream (absent, present or deleted) and its version. */
export async function loadFlow(store: EventStore, siteId: string, flowId: string) {
  return readState(store, flowDecider, flowStream(siteId, flowId));
}

/** The live flow, or 404. */
export async function liveFlow(store: EventStore, siteId: string, flowId: string): Promise<FlowEntry> {
  const { state } = await loadFlow(store, siteId, flowId);
  if (state.status !== 'present') throw new FlowNotFound({ flowId });
  return state.flow;
}

/** Creates a flow (validated by the decider: an active one must be runnable). */
export async function createFlow(deps: Deps, ctx: Ctx, input: { definition: FlowDefinition }): Promise<FlowRecord> {
  await checkRequestTargets(deps, input.definition.graph);
  const flowId = newId();
  return send(deps, ctx, flowId, { type: 'CreateFlow', data: { ...meta(ctx, flowId), ...input } }, true);
}

/** Saves a flow with the given keys replaced; the whole result is validated. */
export async function updateFlow(
  deps: Deps,
  ctx: Ctx,
  input: { flowId: string; changes: Partial<FlowDefinition> },
): Promise<FlowRecord> {
  await checkRequestTargets(deps, input.changes.graph);
  const data = { ...meta(ctx, input.flowId), changes: input.changes };
  return send(deps, ctx, input.flowId, { type: 'UpdateFlow', data });
}

/** Deletes a flow: it never runs again and its token stops working. */
export async function deleteFlow(deps: Deps, ctx: Ctx, input: { flowId: string }): Promise<void> {
  await send(deps, ctx, input.flowId, { type: 'DeleteFlow', data: meta(ctx, input.flowId) });
}

/** Issues a new webhook token for the flow: returned here only, its hash recorded (the old token stops working). */
export async function rotateFlowToken(deps: Deps, ctx: Ctx, input: { flowId: string }): Promise<{ token: string }> {
  const token = `svcf_${randomBytes(32).toString('base64url')}`;
  const data = { ...meta(ctx, input.flowId), tokenHash: hashFlowToken(token) };
  await send(deps, ctx, input.flowId, { type: 'RotateFlowToken', data });
  return { token };
}

/**
 * The flow as it was at a time (the time each save recorded, as item revisions do) or a version of its stream (time
 * travel); null when it did not exist then.
 */
export async function flowAt(
  store: EventStore,
  siteId: string,
  flowId: string,
  at: { asOf?: Date; version?: number },
): Promise<FlowRecord | null> {
  const opts: ReadStreamOptions = at.version ? { toVersion: at.version } : {};
  const until = at.asOf?.getTime() ?? Infinity;
  let state: FlowState = flowDecider.initialState();
  let version = 0;
  for await (const e of store.readStream<FlowEvent>(flowStream(siteId, flowId), opts)) {
    if (Date.parse(e.data.at) > until) break;
    state = flowDecider.evolve(state, domainEvent(e));
    version = e.streamVersion;
  }
  return state.status === 'present' ? flowRecordOf(state.flow, version) : null;
}

/** One save of a flow: the flow after it, the keys that changed, who and when. */
export interface FlowRevision {
  version: number;
  action: 'create' | 'update' | 'delete' | 'token';
  changed: string[];
  data: FlowRecord;
  actor: ActorRef;
  timestamp: string;
}

const ACTIONS = new Map<FlowEvent['type'], FlowRevision['action']>([
  ['FlowCreated', 'create'],
  ['FlowUpdated', 'update'],
  ['FlowDeleted', 'delete'],
  ['FlowTokenRotated', 'token'],
]);

/** A flow's history, newest first, read from its stream (the log is the only record of it). Null: no such flow. */
export async function flowRevisions(
  store: EventStore,
  siteId: string,
  flowId: string,
  page: { limit: number; offset: number },
): Promise<{ rows: FlowRevision[]; total: number } | null> {
  const all: FlowRevision[] = [];
  let state: FlowState = flowDecider.initialState();
  for await (const e of store.readStream<FlowEvent>(flowStream(siteId, flowId))) {
    state = flowDecider.evolve(state, domainEvent(e));
    // A schedule's firing is the worker's bookkeeping, not a save.
    if (state.status === 'absent' || e.type === 'FlowScheduleAdvanced') continue;
    const event = domainEvent(e);
    const changed =
      event.type === 'FlowUpdated' ? event.data.changed : event.type === 'FlowCreated' ? [...DEFINITION_KEYS] : [];
    all.push({
      version: e.streamVersion,
      action: ACTIONS.get(e.type)!,
      changed,
      data: flowRecordOf(state.flow, e.streamVersion),
      actor: e.metadata.actor,
      timestamp: e.data.at,
    });
  }
  if (!all.length) return null;
  all.reverse();
  return { rows: all.slice(page.offset, page.offset + page.limit), total: all.length };
}
