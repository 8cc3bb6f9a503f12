import type { AppDeps } from '../../../deps.ts';
import {
  openPersonal,
  personalSubject,
  sealPersonal,
  shredForGood,
  subjectKeys,
} from '../../../platform/privacy/pii.ts';
import { readAsSite } from '../../../kernel/tenancy/site.ts';
import { findItem } from '../../../../projections/item-documents/index.ts';
import { runsConcerning, subjectsOfRun } from '../../../../projections/flow-run-subjects/index.ts';
import type { FlowRunRecord } from '../../../../projections/flow-runs/index.ts';
import { itemSubjectId } from '../../../contracts/schema/schema.types.ts';
import type { FlowRunEvent, FlowRunStarted } from '../../../contracts/flows/flow-run.events.ts';

type Deps = Pick<AppDeps, 'db' | 'config' | 'schemas'>;

/**
 * A run's own key (a row of `subject_keys`): every value the run records (its input, each step's rendered input and
 * output, carried outputs) is sealed under it, because which person those values concern is often learnt only at a
 * step (a webhook's payload written into a personal field). The erasure of any subject the run concerns destroys it.
 */
export const runKeyId = (siteId: string, runId: string) => `flow-run:${siteId}:${runId}`;

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Whether a value holds what the log cannot hold in clear (a NUL character, a lone surrogate), keys included. */
function unstorable(v: unknown, depth = 0): boolean {
  if (typeof v === 'string') return v.includes('\u0000') || LONE_SURROGATE.test(v);
  if (v === null || typeof v !== 'object' || depth > 64) return false;
  const entries = Array.isArray(v) ? v.map((x) => ['', x] as const) : Object.entries(v);
  return entries.some(([k, x]) => unstorable(k, depth + 1) || unstorable(x, depth + 1));
}

/** One value sealed under the run's key (bound to the run), or null when the key is gone (a subject was erased). */
function sealValue(key: Buffer | undefined, keyId: string, value: unknown): unknown {
  // Such a step fails for good, recorded without its values, as when the log refused them in clear.
  if (unstorable(value)) throw new Error('a value the log cannot hold');
  return key ? sealPersonal(key, keyId, value ?? null, keyId) : null;
}

/** A recorded value in clear: sealed ones open with the run's key (null once it is gone); older runs' as they are. */
export function openValue(key: Buffer | undefined, keyId: string, value: unknown): unknown {
  if (typeof value !== 'string' || personalSubject(value) !== keyId) return value;
  const open = openPersonal(key, value, keyId);
  return open === undefined ? null : open;
}

/** The subjects of an item by its collection's subject rule (none for collections without one). */
async function itemSubjects(deps: Deps, siteId: string, collection: unknown, records: unknown[]): Promise<string[]> {
  if (typeof collection !== 'string') return [];
  const rule = (await deps.schemas.read(siteId)).collections.get(collection)?.subject;
  if (!rule) return [];
  const out = new Set<string>();
  for (const r of records) {
    if (r === null || typeof r !== 'object') continue;
    const rec = r as Record<string, unknown>;
    const id = typeof rec.id === 'string' || typeof rec.id === 'number' ? String(rec.id) : null;
    if (!id) continue;
    if (rule.from === 'item') out.add(itemSubjectId(siteId, collection, id));
    else {
      const field = rule.field === 'user_created' ? 'created_by' : rule.field;
      let user = Object.hasOwn(rec, field) ? rec[field] : undefined;
      if (user === undefined) {
        const doc = await readAsSite(deps.db, siteId, (db) => findItem(db, siteId, collection, id));
        user = field === 'created_by' ? doc?.created_by : doc?.data[field];
      }
      if (typeof user === 'string' && user) out.add(user);
    }
  }
  return [...out];
}

/** Who a run concerns when it starts: the person who started it, the trigger item's subject, its parent's subjects. */
async function startSubjects(deps: Deps, siteId: string, d: FlowRunStarted['data']): Promise<string[]> {
  const out = new Set<string>(d.subjects ?? []);
  if (d.startedBy?.type === 'user') out.add(d.startedBy.id);
  const input = d.input as Record<string, unknown> | null;
  if (d.trigger === 'event' && input && typeof input === 'object' && typeof input.collection === 'string') {
    const values = input.data && typeof input.data === 'object' ? (input.data as Record<string, unknown>) : {};
    for (const s of await itemSubjects(deps, siteId, input.collection, [{ ...values, id: input.id }])) out.add(s);
  }
  // A child's input came from its parent; a retry's from the run it retries.
  const from = d.retryOf?.runId ?? (d.trigger === 'flow' ? d.runId.slice(0, d.runId.lastIndexOf('.')) : null);
  if (from) for (const s of await readAsSite(deps.db, siteId, (db) => subjectsOfRun(db, siteId, from))) out.add(s);
  return [...out].sort();
}

/** Subjects an item step met: the items it wrote or read, by their collection's subject rule. */
async function stepSubjects(deps: Deps, siteId: string, e: FlowRunEvent): Promise<string[]> {
  if (e.type !== 'FlowStepCompleted' || !e.data.operation.startsWith('item.')) return [];
  const input = e.data.input as Record<string, unknown> | null;
  const output = e.data.output;
  const records = Array.isArray(output) ? output : [output];
  return itemSubjects(deps, siteId, input?.collection, records);
}

/**
 * The events of a run as they are recorded: the subjects they concern named, and every value sealed under the run's
 * key (made on first use). The values stay in clear in memory: the executor folds the events it was given.
 */
export async function sealRunEvents(
  deps: Deps,
  siteId: string,
  runId: string,
  events: FlowRunEvent[],
): Promise<FlowRunEvent[]> {
  const keyId = runKeyId(siteId, runId);
  const key = (await subjectKeys(deps.db, deps.config.keyring, [keyId], true)).get(keyId);
  const seal = (v: unknown) => sealValue(key, keyId, v);
  const out: FlowRunEvent[] = [];
  for (const e of events) {
    switch (e.type) {
      case 'FlowRunStarted': {
        const d = e.data;
        const subjects = await startSubjects(deps, siteId, d);
        const retryOf = d.retryOf
          ? { ...d.retryOf, outputs: d.retryOf.outputs.map(([n, v]) => [n, seal(v)] as [string, unknown]) }
          : d.retryOf;
        out.push({ ...e, data: { ...d, input: seal(d.input), subjects, ...(retryOf ? { retryOf } : {}) } });
        break;
      }
      case 'FlowStepCompleted': {
        const subjects = await stepSubjects(deps, siteId, e);
        const data = { ...e.data, input: seal(e.data.input), output: seal(e.data.output) };
        out.push({ ...e, data: subjects.length ? { ...data, subjects } : data });
        break;
      }
      case 'FlowStepFailed':
        out.push({ ...e, data: { ...e.data, input: seal(e.data.input) } });
        break;
      default:
        out.push(e);
    }
  }
  return out;
}

/** Opens the values of a run's recorded events with one read of its key (for the executor, a retry). */
export async function runOpener(deps: Pick<AppDeps, 'db' | 'config'>, siteId: string, runId: string) {
  const keyId = runKeyId(siteId, runId);
  const key = (await subjectKeys(deps.db, deps.config.keyring, [keyId], false)).get(keyId);
  const open = (v: unknown) => openValue(key, keyId, v);
  return (e: FlowRunEvent): FlowRunEvent => {
    switch (e.type) {
      case 'FlowRunStarted': {
        const d = e.data;
        const retryOf = d.retryOf
          ? { ...d.retryOf, outputs: d.retryOf.outputs.map(([n, v]) => [n, open(v)] as [string, unknown]) }
          : d.retryOf;
        return { ...e, data: { ...d, input: open(d.input), ...(retryOf ? { retryOf } : {}) } };
      }
      case 'FlowStepCompleted':
        return { ...e, data: { ...e.data, input: open(e.data.input), output: open(e.data.output) } };
      case 'FlowStepFailed':
        return { ...e, data: { ...e.data, input: open(e.data.input) } };
      default:
        return e;
    }
  };
}

/** Runs as the history shows them: their values opened with one read of the page's run keys (null once erased). */
export async function openRunRecords(
  deps: Pick<AppDeps, 'db' | 'config'>,
  siteId: string,
  runs: FlowRunRecord[],
): Promise<FlowRunRecord[]> {
  const ids = runs.map((r) => runKeyId(siteId, r.id));
  const keys = await subjectKeys(deps.db, deps.config.keyring, ids, false);
  return runs.map((r) => {
    const keyId = runKeyId(siteId, r.id);
    const open = (v: unknown) => openValue(keys.get(keyId), keyId, v);
    const steps = r.steps.map((s) => ({ ...s, input: open(s.input), output: open(s.output) }));
    return { ...r, input: open(r.input), steps };
  });
}

/**
 * The erasure's part: destroys for good the keys of every run that concerns one of the subjects (and of the runs
 * those started), so their recorded values read as null in the history, the audit view and any rebuild. Answers
 * how many runs it reached.
 */
export async function shredRunsConcerning(deps: Pick<AppDeps, 'db'>, subjectIds: string[]): Promise<number> {
  const runs = await runsConcerning(deps.db, subjectIds);
  for (const r of runs) await shredForGood(deps.db, runKeyId(r.siteId, r.runId));
  return runs.length;
}
