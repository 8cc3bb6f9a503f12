import { assertNever, type Decider } from '../../kernel/es/decider.ts';
import { FlowExists, FlowNotFound } from './flow.errors.ts';
import type { FlowDefinition, FlowEvent } from '../../contracts/flows/flow.events.ts';
import { validateFlow } from './flow.validate.ts';

/** A flow as its stream folds it: its definition, the hash of its webhook token, and its times. */
export interface FlowEntry {
  id: string;
  definition: FlowDefinition;
  nextRunAt: string | null;
  tokenHash: string | null;
  createdAt: string;
  createdBy: string;
  updatedAt: string;
}

export type FlowState = { status: 'absent' } | { status: 'present' | 'deleted'; flow: FlowEntry };

type Meta = { flowId: string; now: string; by: string };
/** Create a flow; the decider validates it (a draft may be an unfinished graph). */
export type CreateFlow = { type: 'CreateFlow'; data: Meta & { definition: FlowDefinition } };
/** Save a flow with some keys changed; the whole result is validated as if created. */
export type UpdateFlow = { type: 'UpdateFlow'; data: Meta & { changes: Partial<FlowDefinition> } };
/** Delete a flow. */
export type DeleteFlow = { type: 'DeleteFlow'; data: Meta };
/** Record a new webhook token's hash (the token is generated, hashed and shown by the command). */
export type RotateFlowToken = { type: 'RotateFlowToken'; data: Meta & { tokenHash: string } };
/** Move an active schedule past the firing it ran; nothing when it has moved already (another tick, another node). */
export type AdvanceSchedule = {
  type: 'AdvanceSchedule';
  data: { flowId: string; now: string; firedFor: string; nextRunAt: string | null };
};
export type FlowCommand = CreateFlow | UpdateFlow | DeleteFlow | RotateFlowToken | AdvanceSchedule;

/** The definition's keys, in a fixed order: a changed key is named from this list, never from the request. */
export const DEFINITION_KEYS = [
  'name',
  'description',
  'status',
  'trigger',
  'triggerOptions',
  'graph',
  'runAs',
  'options',
] as const satisfies readonly (keyof FlowDefinition)[];

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/** The definition after a save: each key the change gives replaces the old one; a new trigger resets its options. */
export function applyChanges(def: FlowDefinition, changes: Partial<FlowDefinition>): FlowDefinition {
  const next: FlowDefinition = {
    name: changes.name ?? def.name,
    description: changes.description !== undefined ? changes.description : def.description,
    status: changes.status ?? def.status,
    trigger: changes.trigger ?? def.trigger,
    triggerOptions: changes.triggerOptions ?? def.triggerOptions,
    graph: changes.graph ?? def.graph,
    runAs: changes.runAs ?? def.runAs,
    options: changes.options ?? def.options,
  };
  if (changes.trigger !== undefined && changes.trigger !== def.trigger && changes.triggerOptions === undefined)
    next.triggerOptions = {};
  return next;
}

function present(s: FlowState, flowId: string): FlowEntry {
  if (s.status !== 'present') throw new FlowNotFound({ flowId });
  return s.flow;
}

function decide(cmd: FlowCommand, s: FlowState): FlowEvent[] {
  if (cmd.type === 'AdvanceSchedule') {
    const { flowId, now: at, firedFor, nextRunAt } = cmd.data;
    if (s.status !== 'present' || s.flow.nextRunAt !== firedFor) return [];
    return [{ type: 'FlowScheduleAdvanced', data: { flowId, firedFor, nextRunAt, at } }];
  }
  const { flowId, now: at, by } = cmd.data;
  switch (cmd.type) {
    case 'CreateFlow': {
      if (s.status !== 'absent') throw new FlowExists({ flowId });
      const { nextRunAt } = validateFlow(cmd.data.definition, new Date(at));
      return [{ type: 'FlowCreated', data: { flowId, definition: cmd.data.definition, nextRunAt, at, by } }];
    }
    case 'UpdateFlow': {
      const flow = present(s, flowId);
      const definition = applyChanges(flow.definition, cmd.data.changes);
      const changed = DEFINITION_KEYS.filter((k) => !same(definition[k], flow.definition[k]));
      const { nextRunAt } = validateFlow(definition, new Date(at));
      if (!changed.length && nextRunAt === flow.nextRunAt) return [];
      return [{ type: 'FlowUpdated', data: { flowId, definition, changed, nextRunAt, at, by } }];
    }
    case 'DeleteFlow':
      present(s, flowId);
      return [{ type: 'FlowDeleted', data: { flowId, at, by } }];
    case 'RotateFlowToken':
      present(s, flowId);
      return [{ type: 'FlowTokenRotated', data: { flowId, tokenHash: cmd.data.tokenHash, at, by } }];
    default:
      return assertNever(cmd);
  }
}

function evolve(s: FlowState, e: FlowEvent): FlowState {
  switch (e.type) {
    case 'FlowCreated': {
      const { flowId: id, definition, nextRunAt, at, by } = e.data;
      const flow = { id, definition, nextRunAt, tokenHash: null, createdAt: at, createdBy: by, updatedAt: at };
      return { status: 'present', flow };
    }
    case 'FlowUpdated':
      if (s.status === 'absent') return s;
      return {
        ...s,
        flow: { ...s.flow, definition: e.data.definition, nextRunAt: e.data.nextRunAt, updatedAt: e.data.at },
      };
    case 'FlowDeleted':
      return s.status === 'absent'
        ? s
        : { status: 'deleted', flow: { ...s.flow, nextRunAt: null, updatedAt: e.data.at } };
    case 'FlowTokenRotated':
      return s.status === 'absent'
        ? s
        : { ...s, flow: { ...s.flow, tokenHash: e.data.tokenHash, updatedAt: e.data.at } };
    case 'FlowScheduleAdvanced':
      return s.status === 'present' ? { ...s, flow: { ...s.flow, nextRunAt: e.data.nextRunAt } } : s;
    default:
      return assertNever(e);
  }
}

/** The Flow aggregate: pure; ids, the token hash, the actor and time arrive in the command. */
export const flowDecider: Decider<FlowState, FlowCommand, FlowEvent> = {
  initialState: () => ({ status: 'absent' }),
  decide,
  evolve,
};
