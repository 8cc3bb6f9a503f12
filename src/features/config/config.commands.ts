import type { AppDeps } from '../../deps.ts';
import type { DomainEvent } from '../../kernel/es/event.ts';
import { handleCommands, readState, streamCommand, type StreamCommand } from '../../kernel/es/handle-command.ts';
import type { CommandContext } from '../../kernel/http/command-meta.ts';
import { DomainError, type ErrorObject } from '../../kernel/http/errors.ts';
import { VersionConflict } from '../../kernel/http/kernel.errors.ts';
import { readAsSite } from '../../kernel/tenancy/site.ts';
import { collectionsWithItems, fieldsWithValues } from '../../../projections/item-documents/index.ts';
import { versionFieldsWithValues } from '../../../projections/item-versions/index.ts';
import { schemaDecider, schemaSnapshot } from '../schema/index.ts';
import { schemaStream } from '../../contracts/schema/schema.events.ts';
import type { SchemaSnapshot, SchemaState } from '../../contracts/schema/schema.snapshot.ts';
import { SettingsBody, siteDecider } from '../sites/index.ts';
import { siteStream, type SiteSettings } from '../../contracts/sites/site.events.ts';
import { shredDeletedSecrets, webhookConfigCommand, webhookConfigs } from '../webhooks/index.ts';
import { DestructiveBlocked, ManifestInvalid } from './config.errors.ts';
import {
  collectionToManifest,
  fieldToManifest,
  Manifest,
  MANIFEST_VERSION,
  byRelationKey,
  relationToManifest,
  SETTING_KEYS,
  type Mode,
} from './manifest.ts';
import {
  collectionsToWeigh,
  fieldsToWeigh,
  plan,
  type CurrentConfig,
  type Diff,
  type Operation,
  type Plan,
} from './plan.ts';

type Deps = Pick<AppDeps, 'store' | 'db' | 'config'>;
export const SCOPES = ['all', 'schema', 'settings', 'webhooks'] as const;
export type Scope = (typeof SCOPES)[number];

/** At most this many manifest errors are listed (the rest are counted in the message). */
const MAX_ERRORS = 100;

/** A site's settings from its stream (as they were at `asOf`), only the keys a manifest carries. */
async function settingsOf(deps: Deps, siteId: string, asOf?: Date): Promise<Map<string, unknown>> {
  let settings: SiteSettings = {};
  if (!asOf) {
    const { state } = await readState(deps.store, siteDecider, siteStream(siteId));
    if (state.exists) settings = state.settings;
  } else {
    let state = siteDecider.initialState();
    for await (const e of deps.store.readStream(siteStream(siteId), { until: asOf }))
      state = siteDecider.evolve(state, { type: e.type, data: e.data } as Parameters<typeof siteDecider.evolve>[1]);
    if (state.exists) settings = state.settings;
  }
  const out = new Map<string, unknown>();
  for (const key of SETTING_KEYS)
    if (Object.hasOwn(settings, key) && settings[key] !== undefined) out.set(key, settings[key]);
  return out;
}

/** The manifest of a schema snapshot: user collections, their fields and the relations, in a fixed order. */
export function schemaManifest(snapshot: Pick<SchemaSnapshot, 'collections' | 'relations'>) {
  const user = snapshot.collections.filter((c) => !c.system);
  return {
    collections: user.map((c) => collectionToManifest(c.def)),
    fields: user.flatMap((c) => c.fields.map((f) => fieldToManifest(c.def.name, f))),
    relations: snapshot.relations.map(relationToManifest).sort(byRelationKey),
    managedScopes: user.map((c) => c.def.name),
  };
}

/**
 * `GET /config/export`: the site's configuration as a manifest (now, or as it was at `asOf`, folded from the log):
 * no items, no secrets, no access control, in a deterministic order.
 */
export async function exportConfig(
  deps: Deps,
  siteId: string,
  opts: { scope: Scope; asOf?: Date; now: Date },
): Promise<Manifest> {
  const { scope, asOf } = opts;
  let manifest: Manifest = { version: MANIFEST_VERSION, exportedAt: opts.now.toISOString() };
  if (scope === 'all' || scope === 'schema')
    manifest = { ...manifest, ...schemaManifest(await schemaSnapshot(deps.store, siteId, asOf)) };
  if (scope === 'all' || scope === 'webhooks') manifest.webhooks = await webhookConfigs(deps.store, siteId, asOf);
  if (scope === 'all' || scope === 'settings')
    manifest.settings = [...(await settingsOf(deps, siteId, asOf))].map(([key, value]) => ({
      key,
      value,
    })) as Manifest['settings'];
  return manifest;
}

const issuePath = (path: readonly PropertyKey[]) => path.map((p) => String(p));

/** The manifest read from a request body, or its errors (the version first: another version is not read further). */
export function readManifest(
  body: unknown,
): { manifest: Manifest; errors: [] } | { manifest: null; errors: ErrorObject[] } {
  const version =
    body && typeof body === 'object' && !Array.isArray(body) ? (body as { version?: unknown }).version : undefined;
  if (version !== MANIFEST_VERSION) {
    const given = version === undefined ? 'no version' : `version ${JSON.stringify(version).slice(0, 100)}`;
    const message = `${given} is not supported; this service reads ${MANIFEST_VERSION}`;
    return {
      manifest: null,
      errors: [{ code: 'UNSUPPORTED_MANIFEST_VERSION', message, path: ['version'], extensions: {} }],
    };
  }
  const parsed = Manifest.safeParse(body);
  if (parsed.success) {
    const errors: ErrorObject[] = [];
    parsed.data.settings?.forEach((s, i) => {
      const shape = SettingsBody.shape[s.key].safeParse(s.value);
      if (!shape.success)
        for (const issue of shape.error.issues)
          errors.push({
            code: 'VALIDATION_FAILED',
            message: issue.message,
            path: ['settings', String(i), 'value', ...issuePath(issue.path)],
            extensions: {},
          });
    });
    return errors.length ? { manifest: null, errors } : { manifest: parsed.data, errors: [] };
  }
  return {
    manifest: null,
    errors: parsed.error.issues.map((issue) => ({
      code: 'VALIDATION_FAILED',
      message: issue.message,
      path: issuePath(issue.path),
      extensions: {},
    })),
  };
}

/** The site as a plan sees it, and the schema version it was read at. */
async function currentConfig(
  deps: Deps,
  siteId: string,
): Promise<{ current: CurrentConfig & { schema: { state: SchemaState } }; version: number }> {
  const [snapshot, webhooks, settings] = await Promise.all([
    schemaSnapshot(deps.store, siteId),
    webhookConfigs(deps.store, siteId),
    settingsOf(deps, siteId),
  ]);
  return { current: { schema: snapshot, webhooks, settings }, version: snapshot.version };
}

export interface ImportInput {
  body: unknown;
  mode: Mode;
  dryRun: boolean;
  allowDestructive: boolean;
  /** What the plan may delete beyond the mode (a collection's schema: that collection). */
  managedScopes?: string[];
  source: string;
}

export interface ImportResult {
  valid: boolean;
  errors: ErrorObject[];
  diff: Diff;
  operations: Operation[];
  applied?: { created: number; updated: number; deleted: number };
  /** The signing secrets of the webhooks the apply created, shown this once (Standard Webhooks `whsec_…`). */
  secrets?: { name: string; secret: string }[];
  /** The schema version the result leaves (or found, for a dry run). */
  version: number;
}

const refuse = (errors: ErrorObject[], diff: Diff | null) => {
  const shown = errors.slice(0, MAX_ERRORS);
  return new ManifestInvalid({ errors: shown, more: errors.length - shown.length, diff });
};

/**
 * Plans a manifest against the site and, unless it is a dry run, applies it: every change of the schema, the
 * webhooks and the settings in ONE atomic append, against the schema version the plan was made from (a change in
 * between, or an If-Match that names another version, is 409 CONFLICT). Manifest errors are 422 with each code and
 * path; a high-risk operation without `allowDestructive` is 409 DESTRUCTIVE_BLOCKED.
 */
export async function importConfig(deps: Deps, ctx: CommandContext, input: ImportInput): Promise<ImportResult> {
  const read = readManifest(input.body);
  if (!read.manifest) throw refuse(read.errors, null);
  let manifest = read.manifest;
  if (input.managedScopes) manifest = { ...manifest, managedScopes: input.managedScopes };
  const { current, version } = await currentConfig(deps, ctx.siteId);
  if (ctx.expectedVersion !== undefined && ctx.expectedVersion !== version)
    throw new VersionConflict({ streamId: schemaStream(ctx.siteId), expected: ctx.expectedVersion, actual: version });
  const weigh = fieldsToWeigh(current, manifest, input.mode);
  const drops = collectionsToWeigh(current, manifest, input.mode);
  const presence =
    weigh.length + drops.length === 0
      ? { collections: new Set<string>(), fields: new Set<string>() }
      : await readAsSite(deps.db, ctx.siteId, async (trx) => ({
          collections: await collectionsWithItems(trx, ctx.siteId, drops),
          // Values count wherever they are kept: in items (deleted ones too) and in their named versions (drafts).
          fields: new Set([
            ...(await fieldsWithValues(trx, ctx.siteId, weigh)),
            ...(await versionFieldsWithValues(trx, ctx.siteId, weigh)),
          ]),
        }));
  const p = plan(current, manifest, input.mode, presence);
  if (p.errors.length) throw refuse(p.errors, p.diff);
  // The schema's own rules decide the steps now, so a dry run that says valid is an apply that passes.
  rehearse(current.schema.state, p, ctx.now);
  const result = { valid: true, errors: [], diff: p.diff, operations: p.operations, version };
  if (input.dryRun) return result;
  const high = p.operations.filter((o) => o.risk === 'high');
  if (high.length && !input.allowDestructive) throw new DestructiveBlocked({ operations: high });
  if (p.operations.length === 0) return { ...result, applied: { created: 0, updated: 0, deleted: 0 } };
  const { version: after, secrets } = await apply(deps, ctx, p, version, { source: input.source, mode: input.mode });
  const count = (a: Operation['action']) => p.operations.filter((o) => o.action === a).length;
  const applied = { created: count('create'), updated: count('update'), deleted: count('delete') };
  return { ...result, version: after, applied, ...(secrets.length ? { secrets } : {}) };
}

/** The plan's schema steps decided against the state they were planned from; a refusal is the manifest's error. */
function rehearse(state: SchemaState, p: Plan, now: Date): void {
  if (p.steps.length === 0) return;
  const summary = { source: '', mode: '', risk: p.diff.risk, created: 0, updated: 0, deleted: 0, operations: [] };
  try {
    schemaDecider.decide({ type: 'ApplyPlan', data: { steps: p.steps, summary, now: now.toISOString() } }, state);
  } catch (err) {
    if (!(err instanceof DomainError)) throw err;
    const errors = err.toErrorObjects().map((e) => ({ ...e, path: ['operations', ...e.path] }));
    throw refuse(errors, p.diff);
  }
}

async function apply(
  deps: Deps,
  ctx: CommandContext,
  p: Plan,
  version: number,
  about: { source: string; mode: Mode },
): Promise<{ version: number; secrets: { name: string; secret: string }[] }> {
  const count = (a: Operation['action']) => p.operations.filter((o) => o.action === a).length;
  const summary = {
    source: about.source,
    mode: about.mode,
    risk: p.diff.risk,
    created: count('create'),
    updated: count('update'),
    deleted: count('delete'),
    operations: p.operations.map(({ resource, action, key, risk }) => ({ resource, action, key, risk })),
  };
  const now = ctx.now.toISOString();
  const commands: StreamCommand<unknown, unknown, DomainEvent>[] = [];
  // The schema stream is pinned at the version the plan was made from, even when only webhooks or settings change.
  commands.push(
    streamCommand({
      decider: schemaDecider,
      streamId: schemaStream(ctx.siteId),
      command: p.steps.length ? { type: 'ApplyPlan', data: { steps: p.steps, summary, now } } : null,
      expectedVersion: version,
    }),
  );
  const allowPrivate = deps.config.SVC_WEBHOOK_ALLOW_PRIVATE;
  const hooks = await webhookConfigCommand(
    deps.db,
    deps.config.keyring,
    ctx.siteId,
    p.webhooks,
    now,
    ctx.actor.id,
    allowPrivate,
  );
  if (hooks) commands.push(hooks.command);
  if (p.settings.length) {
    const settings = Object.fromEntries(p.settings.map((s) => [s.key, s.value])) as SiteSettings;
    commands.push(
      streamCommand({
        decider: siteDecider,
        streamId: siteStream(ctx.siteId),
        command: { type: 'UpdateSite', data: { siteId: ctx.siteId, settings, now } },
      }),
    );
  }
  const results = await handleCommands(deps.store, commands, { metadata: ctx.metadata });
  if (hooks) await shredDeletedSecrets(deps.db, results[1]!.events);
  return { version: results[0]!.version, secrets: hooks?.secrets ?? [] };
}
