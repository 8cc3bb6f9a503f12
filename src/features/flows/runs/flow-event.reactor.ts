import type { AppDeps } from '../../../deps.ts';
import type { StoredEventOf } from '../../../kernel/es/projector.ts';
import { defineReactor, type Reactor } from '../../../kernel/es/reactor.ts';
import { readAsSite } from '../../../kernel/tenancy/site.ts';
import { LocalCache } from '../../../platform/cache/local-cache.ts';
import { FLOW_EVENT_TYPES } from '../../../contracts/flows/flow.events.ts';
import { activeEventFlows, type FlowRecord } from '../../../../projections/flows/index.ts';
import { touchesRestricted } from '../../webhooks/index.ts';
import { SOURCE_EVENT_TYPES, sourceEventName, type SourceEvent } from '../../../contracts/webhooks/webhook.sources.ts';
import { loadFlow } from '../flow.commands.ts';
import { MAX_TRIGGER_DEPTH } from '../operations/registry.ts';
import { eventRunId } from '../../../contracts/flows/flow-run.events.ts';
import { loadRun, startRun } from './flow-run.commands.ts';
import { budgetOf, type TreePlace } from './flow-budget.ts';

export const FLOW_EVENT_TRIGGER = 'flow-event-trigger';
/** How long a site's flows are kept at most (a safety net: a change of them clears them at once). */
const MEMO_MS = 10 * 60_000;

/** The log's events an event flow hears of: those a webhook hears of, under the same names. */
export type TriggerEvent = SourceEvent;
export const TRIGGER_EVENT_TYPES = SOURCE_EVENT_TYPES;

/** A run's input (`$trigger`) for an event: its name, the collection and id, and the values it recorded. */
export function triggerInput(e: StoredEventOf<TriggerEvent>): { event: string; collections: string[]; input: unknown } {
  const event = sourceEventName(e.type);
  if (e.type === 'ReleasePublished') {
    const items = e.data.outcomes.map((o) => ({ collection: o.collection, id: o.itemId, outcome: o.outcome }));
    const input = { event, releaseId: e.data.releaseId, status: e.data.status, items, at: e.data.at };
    return { event, collections: [...new Set(items.map((i) => i.collection))], input };
  }
  const d = e.data;
  // Values as the log holds them: a personal value stays sealed (item.read reads it as the runAs role may).
  const data = ('changes' in d ? d.changes : undefined) ?? ('values' in d ? d.values : undefined) ?? null;
  const fields = data && typeof data === 'object' ? Object.keys(data).sort() : [];
  const input = { event, collection: d.collection, id: d.id, fields, data, at: d.at };
  return { event, collections: [d.collection], input };
}

/** Whether an event flow takes the event (pure): it names the event, and all collections or one it touches. */
export function flowTakes(f: Pick<FlowRecord, 'triggerOptions'>, event: string, collections: string[]): boolean {
  const o = f.triggerOptions;
  const events = Object.hasOwn(o, 'events') && Array.isArray(o.events) ? (o.events as unknown[]) : [];
  const only = Object.hasOwn(o, 'collections') && Array.isArray(o.collections) ? (o.collections as unknown[]) : null;
  if (!events.includes(event)) return false;
  return !only?.length || collections.some((c) => only.includes(c));
}

/** Where the event's cause stands: a flow's own write continues its run's tree one level deeper; anything else starts a root. */
interface Cause {
  depth: number;
  /** The run whose step wrote the event, its root and the root's budget; null when no flow's run caused it. */
  parent: TreePlace | null;
}

/**
 * The cause of an event: a step of a run writes with `causationId: "flow-step:<runId>/<nodeId>"` and the root in its
 * correlation (`flow-run:<rootRunId>`), so the writer's run is found and the new run spends the same root's budget.
 * A request of a run's step that came back over HTTP with a genuine tree header (an item write with an API key)
 * writes with `flow-call:<runId>/<nodeId>`, whoever its actor: only the service sets a causation, and only after the
 * header's MAC was checked, so a caller can neither forge this form nor leave its tree by writing over HTTP.
 */
async function causeOf(deps: AppDeps, e: StoredEventOf<TriggerEvent>): Promise<Cause> {
  const cause = e.metadata.causationId ?? '';
  const step = e.metadata.actor.type === 'flow' ? /^flow-step:(.+)\/[^/]+$/.exec(cause) : null;
  const call = /^flow-call:(.+)\/[^/]+$/.exec(cause);
  const runId = (step ?? call)?.[1];
  if (!runId) return { depth: 0, parent: null };
  const { state } = await loadRun(deps, e.siteId, runId);
  if (state.status === 'absent') return { depth: 0, parent: null };
  const correlated = step ? /^flow-run:(.+)$/.exec(e.metadata.correlationId)?.[1] : undefined;
  const root = correlated ?? state.rootRunId;
  const budget = state.budget ?? budgetOf(deps.config);
  return { depth: state.depth + 1, parent: { runId: state.runId, rootRunId: root, budget } };
}

type StartFor = { type: 'StartEventRun'; flowId: string } & Cause;

/**
 * The event trigger: for each item change or release publish, one run of every active event flow of the site that
 * takes it. The run id is `<flowId>~<eventId>` and its stream new (`no_stream`), so an event handled again after
 * a crash, or by another node, starts nothing twice. Events of a person under restriction start nothing, and a
 * flow's own writes start runs one level deeper, up to MAX_TRIGGER_DEPTH, within the budget of the writer's root.
 */
export function flowEventTrigger(deps: AppDeps): Reactor {
  // Each site's active event flows, read once and kept until a flow of the site changes: the reactor sees the flows'
  // events in log order with the others, so an item event never meets flows older than the log says.
  const memo = new LocalCache<FlowRecord[]>({ maxEntries: 1000 });
  const flowsOf = async (siteId: string): Promise<FlowRecord[]> => {
    const kept = memo.get(siteId);
    if (kept) return kept;
    const read = await readAsSite(deps.db, siteId, (db) => activeEventFlows(db, siteId));
    memo.set(siteId, read, MEMO_MS);
    return read;
  };
  return defineReactor<TriggerEvent, { flows: string[] } & Cause, StartFor>({
    name: FLOW_EVENT_TRIGGER,
    handles: TRIGGER_EVENT_TYPES,
    observes: FLOW_EVENT_TYPES,
    observe: (e) => void memo.delete(e.siteId),
    reset: () => memo.clear(),
    load: async (e) => {
      const { event, collections } = triggerInput(e);
      // A flow made after the event takes none of it.
      const all = (await flowsOf(e.siteId)).filter((f) => Date.parse(f.createdAt) <= e.createdAt.getTime());
      const flows = all.filter((f) => flowTakes(f, event, collections)).map((f) => f.id);
      const none = { flows: [], depth: 0, parent: null };
      if (!flows.length) return none;
      if (await touchesRestricted(deps, e)) return none;
      return { flows, ...(await causeOf(deps, e)) };
    },
    react: (_e, s) =>
      s.depth > MAX_TRIGGER_DEPTH
        ? []
        : s.flows.map((flowId) => ({ type: 'StartEventRun', flowId, depth: s.depth, parent: s.parent })),
    send: async (cmd, e) => {
      const { state, version } = await loadFlow(deps.store, e.siteId, cmd.flowId);
      if (state.status !== 'present' || state.flow.definition.status !== 'active') return;
      await startRun(deps, {
        siteId: e.siteId,
        flow: state.flow,
        flowVersion: version,
        trigger: 'event',
        input: triggerInput(e).input,
        depth: cmd.depth,
        runId: eventRunId(cmd.flowId, e.eventId),
        causationId: e.eventId,
        // A run a tree's write caused spends the tree's budget, a root the site's; refused, it is recorded as
        // failed, saying why.
        ...(cmd.parent ? { parent: cmd.parent } : {}),
        recordRefusal: true,
        now: deps.clock.now(),
      });
    },
  });
}
