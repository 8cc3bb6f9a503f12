import type { AppDeps } from '../../deps.ts';
import type { Decider } from '../../kernel/es/decider.ts';
import type { ActorRef } from '../../kernel/es/event.ts';
import { handleCommand } from '../../kernel/es/handle-command.ts';
import type { Principal } from '../../kernel/http/access.ts';
import type { CommandContext } from '../../kernel/http/command-meta.ts';
import { DomainError } from '../../kernel/http/errors.ts';
import { dictFrom } from '../../kernel/safe/keys.ts';
import { readAsSite } from '../../kernel/tenancy/site.ts';
import { listIntents } from '../../../projections/git-integrations/index.ts';
import { createItems, itemGuard, readItem, updateItem } from '../items/index.ts';
import { integrationOf } from './git.commands.ts';
import { currentToken } from './git.oauth.ts';
import { GitIntentsInvalid, GitTokenMissing } from './git.errors.ts';
import {
  gitIntentStream,
  gitSyncStream,
  type AppliedIntent,
  type GitContentIntentRemoved,
  type GitContentIntentSet,
  type GitopsSynced,
  type RefusedIntent,
} from './git.events.ts';
import {
  canonical,
  differingFields,
  INTENT_LIMITS,
  isIntentFile,
  parseIntentFile,
  type IntentProblem,
  type ItemIntent,
} from './git.intents.ts';
import { repositoryOf, type RepositoryPort } from './providers/index.ts';

type IntentState = { values: string; path: string } | null;
type IntentCommand =
  | { type: 'SetIntent'; data: GitContentIntentSet['data'] }
  | { type: 'RemoveIntent'; data: GitContentIntentRemoved['data'] };

/** One stream per declared item: an intent is recorded when it is new or changed, removed once. */
export const intentDecider: Decider<IntentState, IntentCommand, GitContentIntentSet | GitContentIntentRemoved> = {
  initialState: () => null,
  evolve: (_s, e) =>
    e.type === 'GitContentIntentSet' ? { values: canonical(e.data.values), path: e.data.path } : null,
  decide: (c, s) => {
    if (c.type === 'RemoveIntent') return s ? [{ type: 'GitContentIntentRemoved', data: c.data }] : [];
    if (s && s.values === canonical(c.data.values) && s.path === c.data.path) return [];
    return [{ type: 'GitContentIntentSet', data: c.data }];
  },
};

const syncDecider: Decider<null, { type: 'RecordSync'; data: GitopsSynced['data'] }, GitopsSynced> = {
  initialState: () => null,
  evolve: () => null,
  decide: (c) => [{ type: 'GitopsSynced', data: c.data }],
};

/** An item named by the drift report. */
export interface DriftEntry {
  path: string | null;
  collection: string;
  itemId: string;
  fields?: string[];
}

export interface SyncReport {
  sha: string;
  branch: string;
  dryRun: boolean;
  files: number;
  intents: number;
  drift: { missing: DriftEntry[]; different: DriftEntry[]; extra: DriftEntry[]; inSync: number };
  applied: AppliedIntent[];
  refused: RefusedIntent[];
}

/** The repository of an integration, reached with its token. */
async function repositoryFor(deps: AppDeps, siteId: string, integrationId: string) {
  const integration = await integrationOf(deps, siteId, integrationId);
  const token = await currentToken(deps, siteId, integration);
  if (token === null) throw new GitTokenMissing({ integrationId });
  const port = repositoryOf(integration.provider, {
    repository: integration.repository,
    baseUrl: integration.baseUrl,
    token,
    allowPrivate: deps.config.SVC_GIT_ALLOW_PRIVATE,
    timeoutMs: deps.config.SVC_GIT_TIMEOUT_MS,
  });
  return { integration, port };
}

/**
 * Every intent under the folder at the commit. A file that cannot be read as intents, too many files or intents,
 * or one item declared twice refuse the whole sync (422 GIT_INTENTS_INVALID, every file's problem listed): a
 * half-read repository is no state anyone committed, so nothing is applied.
 */
export async function readIntents(port: RepositoryPort, sha: string, dir: string): Promise<ItemIntent[]> {
  const files = (await port.listFiles(sha, dir)).filter((f) => isIntentFile(f.path));
  const problems: IntentProblem[] = [];
  if (files.length > INTENT_LIMITS.files)
    throw new GitIntentsInvalid({
      files: [{ path: dir, problem: `more than ${String(INTENT_LIMITS.files)} intent files` }],
    });
  const intents: ItemIntent[] = [];
  for (const f of files.sort((a, b) => (a.path < b.path ? -1 : 1))) {
    // Known before reading when the provider gives sizes; `parseIntentFile` checks the text read either way.
    if (f.size !== null && f.size > INTENT_LIMITS.fileBytes) {
      problems.push({ path: f.path, problem: `larger than ${String(INTENT_LIMITS.fileBytes)} bytes` });
      continue;
    }
    const read = parseIntentFile(f.path, await port.readFile(sha, f.path));
    if ('problem' in read) problems.push(read);
    else intents.push(...read.intents);
  }
  const seen = new Map<string, string>();
  for (const i of intents) {
    const key = `${i.collection}/${String(i.id)}`;
    const first = seen.get(key);
    if (first !== undefined) problems.push({ path: i.path, problem: `${key} is also declared in ${first}` });
    else seen.set(key, i.path);
  }
  if (intents.length > INTENT_LIMITS.intents)
    problems.push({ path: dir, problem: `more than ${String(INTENT_LIMITS.intents)} intents` });
  if (problems.length) throw new GitIntentsInvalid({ files: problems });
  return intents;
}

/**
 * `POST /integrations/git/:id/gitops/sync`: reads the intents of the integration's branch through the provider,
 * records them as content intents, scans the drift (missing, different, extra) and, unless `dryRun`, reconciles
 * through the item commands: each create or update is authorized as the caller (never more) and written under
 * actor type `gitops` with the commit as its correlation id. A refused intent is reported; the others apply.
 * `target` applies them to another site (a preview) as of another commit; the caller is then a principal there.
 */
export async function syncIntents(
  deps: AppDeps,
  caller: Principal,
  ctx: CommandContext,
  integrationId: string,
  opts: {
    dryRun: boolean;
    /** Another site to apply the intents to, at a given commit (a preview, at its pull request's head). */
    target?: { siteId: string; ref: string; sha: string };
  },
): Promise<SyncReport> {
  const { integration, port } = await repositoryFor(deps, ctx.siteId, integrationId);
  const siteId = opts.target?.siteId ?? ctx.siteId;
  const { intentsPath } = integration.syncConfig;
  const branch = opts.target?.ref ?? integration.syncConfig.branch;
  const sha = opts.target?.sha ?? (await port.branchHead(branch));
  const intents = await readIntents(port, sha, intentsPath);
  const files = new Set(intents.map((i) => i.path)).size;

  const actor: ActorRef = { type: 'gitops', id: integrationId, onBehalfOf: ctx.actor.id };
  const now = ctx.now.toISOString();
  const gitops: CommandContext = {
    siteId,
    actor,
    now: ctx.now,
    metadata: { ...ctx.metadata, siteId, actor, correlationId: sha },
  };

  const declared = new Set(intents.map((i) => `${i.collection}/${String(i.id)}`));
  const before = await readAsSite(deps.db, siteId, (db) => listIntents(db, siteId, integrationId));
  const missing: DriftEntry[] = [];
  const different: DriftEntry[] = [];
  const extra: DriftEntry[] = [];
  let inSync = 0;
  const pending: { intent: ItemIntent; create: boolean; fields: string[] }[] = [];
  for (const intent of intents) {
    const itemId = String(intent.id);
    const live = await readItem(deps, siteId, intent.collection, itemId);
    const fields = differingFields(intent, live?.record ?? null);
    if (!live) missing.push({ path: intent.path, collection: intent.collection, itemId });
    else if (fields.length) different.push({ path: intent.path, collection: intent.collection, itemId, fields });
    else inSync++;
    if (!live || fields.length) pending.push({ intent, create: !live, fields });
  }
  for (const b of before) {
    if (declared.has(`${b.collection}/${b.itemId}`)) continue;
    if (await readItem(deps, siteId, b.collection, b.itemId))
      extra.push({ path: b.path, collection: b.collection, itemId: b.itemId });
  }
  const report: SyncReport = {
    sha,
    branch,
    dryRun: opts.dryRun,
    files,
    intents: intents.length,
    drift: { missing, different, extra, inSync },
    applied: [],
    refused: [],
  };
  if (opts.dryRun) return report;

  // The content intents as of this commit: new or changed ones recorded, those no longer declared removed.
  const metadata = gitops.metadata;
  for (const i of intents)
    await handleCommand(
      deps.store,
      intentDecider,
      gitIntentStream(siteId, integrationId, i.collection, String(i.id)),
      {
        type: 'SetIntent',
        data: {
          integrationId,
          collection: i.collection,
          itemId: String(i.id),
          path: i.path,
          sha,
          values: i.values,
          at: now,
        },
      },
      { metadata },
    );
  for (const b of before)
    if (!declared.has(`${b.collection}/${b.itemId}`))
      await handleCommand(
        deps.store,
        intentDecider,
        gitIntentStream(siteId, integrationId, b.collection, b.itemId),
        { type: 'RemoveIntent', data: { integrationId, collection: b.collection, itemId: b.itemId, sha, at: now } },
        { metadata },
      );

  const guard = itemGuard(deps);
  for (const { intent, create, fields } of pending) {
    const itemId = String(intent.id);
    const at = { path: intent.path, collection: intent.collection, itemId };
    try {
      const s = await guard.collection(caller, intent.collection);
      if (create) {
        const items = await guard.authorizeCreate(caller, s, [{ ...intent.values, id: intent.id }], false);
        await createItems(deps, gitops, { schema: s, items, bulk: false });
        report.applied.push({ ...at, action: 'created', fields: Object.keys(intent.values) });
      } else {
        const changes = dictFrom(fields.map((f) => [f, intent.values[f]] as const));
        await guard.authorizeUpdate(caller, s, itemId, changes, (current) => ({ ...current, ...changes }));
        await updateItem(deps, gitops, { schema: s, id: itemId, changes });
        report.applied.push({ ...at, action: 'updated', fields });
      }
    } catch (err) {
      if (!(err instanceof DomainError)) throw err;
      report.refused.push({ ...at, code: err.code, message: err.message });
    }
  }

  await handleCommand(
    deps.store,
    syncDecider,
    gitSyncStream(siteId, integrationId),
    {
      type: 'RecordSync',
      data: {
        integrationId,
        sha,
        branch,
        files,
        intents: intents.length,
        drift: { missing: missing.length, different: different.length, extra: extra.length, inSync },
        applied: report.applied,
        refused: report.refused,
        at: now,
        by: ctx.actor.id,
      },
    },
    { metadata },
  );
  return report;
}
