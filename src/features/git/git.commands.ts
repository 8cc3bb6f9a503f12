import type { AppDeps } from '../../deps.ts';
import { handleCommand, readState } from '../../kernel/es/handle-command.ts';
import type { CommandContext } from '../../kernel/http/command-meta.ts';
import { newId } from '../../kernel/ids.ts';
import { previewBaseOf } from '../../kernel/tenancy/site.ts';
import { savedUrlProblem } from '../../platform/net/saved-url.ts';
import { seal, shred, unseal } from '../../platform/privacy/pii.ts';
import { gitDeliveryDecider, gitIntegrationDecider, type GitIntegrationState } from './git.decider.ts';
import { GitAppMisplaced, GitBaseUrlRefused, GitIntegrationNotFound, IntegrationOnPreview } from './git.errors.ts';
import {
  gitDeliveryStream,
  gitIntegrationStream,
  type GitIntegrationUpdated,
  type GitProvider,
  type SyncConfig,
} from '../../contracts/git/git.events.ts';
import {
  generateSecret,
  SyncConfig as SyncConfigSchema,
  type IntegrationCreate,
  type IntegrationPatch,
  type IntegrationRecord,
} from './git.schema.ts';

type Ctx = Pick<CommandContext, 'siteId' | 'now' | 'metadata' | 'actor'>;
type Deps = Pick<AppDeps, 'db' | 'store' | 'config'>;

/** The receiver's address of an integration (SVC_PUBLIC_URL, default http://localhost:PORT). */
export function webhookUrl(deps: Pick<AppDeps, 'config'>, siteId: string, provider: GitProvider, id: string): string {
  const base = (deps.config.SVC_PUBLIC_URL ?? `http://localhost:${deps.config.PORT}`).replace(/\/+$/, '');
  return `${base}/api/v1/integrations/git/webhook/${provider}/${encodeURIComponent(siteId)}/${encodeURIComponent(id)}`;
}

/** An integration as the API shows it: the token and the secret stay behind. */
export function recordOf(
  deps: Pick<AppDeps, 'config'>,
  siteId: string,
  s: NonNullable<GitIntegrationState>,
): IntegrationRecord {
  return {
    id: s.integrationId,
    provider: s.provider,
    repository: s.repository,
    baseUrl: s.baseUrl,
    authMethod: s.authMethod,
    hasToken: s.token !== null,
    app: s.app && s.appKey ? { appId: s.app.appId, installationId: s.app.installationId } : null,
    webhookUrl: webhookUrl(deps, siteId, s.provider, s.integrationId),
    sync_config: s.syncConfig,
    createdAt: s.createdAt,
    updatedAt: s.updatedAt,
  };
}

/** The site's integration of that id now, or null (none, or deleted): what processing and receivers read. */
export async function findIntegration(
  deps: Pick<AppDeps, 'store'>,
  siteId: string,
  integrationId: string,
): Promise<GitIntegrationState> {
  return (await readState(deps.store, gitIntegrationDecider, gitIntegrationStream(siteId, integrationId))).state;
}

/** The site's integration of that id now, or 404. */
export async function integrationOf(
  deps: Pick<AppDeps, 'store'>,
  siteId: string,
  integrationId: string,
): Promise<NonNullable<GitIntegrationState>> {
  const state = await findIntegration(deps, siteId, integrationId);
  if (!state) throw new GitIntegrationNotFound({ integrationId });
  return state;
}

/**
 * A base URL is checked when saved by the outbound helper's address rules, names resolved (unless
 * SVC_GIT_ALLOW_PRIVATE), as webhooks and flows are: the schema alone reads only the address's text.
 */
async function checkBaseUrl(deps: Deps, baseUrl: string | null | undefined): Promise<void> {
  if (!baseUrl) return;
  const problem = await savedUrlProblem(baseUrl, { allowPrivate: deps.config.SVC_GIT_ALLOW_PRIVATE });
  if (problem) throw new GitBaseUrlRefused(problem);
}

/**
 * Makes an integration; its token and webhook secret are sealed under the integration's own key. Without a
 * secret one is made, and answered here only.
 */
export async function createIntegration(
  deps: Deps,
  ctx: Ctx,
  body: IntegrationCreate,
): Promise<{ record: IntegrationRecord; webhookSecret: string | null }> {
  if (previewBaseOf(ctx.siteId) !== null) throw new IntegrationOnPreview({});
  await checkBaseUrl(deps, body.baseUrl);
  const integrationId = newId();
  const secret = body.webhookSecret ?? generateSecret();
  const { db } = deps;
  const ring = deps.config.keyring;
  const data = {
    integrationId,
    provider: body.provider,
    repository: body.repository,
    baseUrl: body.baseUrl ?? null,
    authMethod: body.authMethod,
    syncConfig: (body.sync_config ?? SyncConfigSchema.parse({})) as SyncConfig,
    token: body.token === undefined ? null : await seal(db, ring, integrationId, body.token),
    webhookSecret: await seal(db, ring, integrationId, secret),
    app: body.app ? { appId: body.app.appId, installationId: body.app.installationId } : null,
    appKey: body.app ? await seal(db, ring, integrationId, body.app.privateKey) : null,
    at: ctx.now.toISOString(),
    by: ctx.actor.id,
  };
  const r = await handleCommand(
    deps.store,
    gitIntegrationDecider,
    gitIntegrationStream(ctx.siteId, integrationId),
    { type: 'CreateIntegration', data },
    { metadata: ctx.metadata },
  );
  return { record: recordOf(deps, ctx.siteId, r.state!), webhookSecret: body.webhookSecret ? null : secret };
}

/** Changes the given settings; a token or secret given replaces the stored one (null removes the token). */
export async function updateIntegration(
  deps: Deps,
  ctx: Ctx,
  integrationId: string,
  patch: IntegrationPatch,
): Promise<IntegrationRecord> {
  // Known before anything is sealed under the id the request names.
  const current = await integrationOf(deps, ctx.siteId, integrationId);
  await checkBaseUrl(deps, patch.baseUrl);
  const ring = deps.config.keyring;
  const changes: GitIntegrationUpdated['data']['changes'] = {};
  if (patch.repository !== undefined) changes.repository = patch.repository;
  if (patch.baseUrl !== undefined) changes.baseUrl = patch.baseUrl;
  if (patch.authMethod !== undefined) changes.authMethod = patch.authMethod;
  const given = patch.sync_config && Object.entries(patch.sync_config).filter(([, v]) => v !== undefined);
  const syncConfig = given?.length ? (Object.fromEntries(given) as Partial<SyncConfig>) : undefined;
  if (patch.token !== undefined) {
    changes.token = patch.token === null ? null : await seal(deps.db, ring, integrationId, patch.token);
    // A token given by hand (a personal or project access token) does not expire the way an OAuth one does.
    if (current.refreshToken || current.tokenExpiresAt) {
      changes.refreshToken = null;
      changes.tokenExpiresAt = null;
    }
  }
  // A host change drops the stored credentials the change does not replace: the decider does it (git.decider.ts).
  // Refused before anything is sealed: an app kept or given where it cannot act.
  const hostChanged = patch.baseUrl !== undefined && patch.baseUrl !== current.baseUrl;
  const app = patch.app !== undefined ? patch.app : hostChanged ? null : (current.app ?? null);
  if (app && (current.provider !== 'github' || (patch.authMethod ?? current.authMethod) !== 'app'))
    throw new GitAppMisplaced({});
  if (patch.app !== undefined) {
    changes.app = patch.app && { appId: patch.app.appId, installationId: patch.app.installationId };
    changes.appKey = patch.app && (await seal(deps.db, ring, integrationId, patch.app.privateKey));
  }
  if (patch.webhookSecret !== undefined)
    changes.webhookSecret = await seal(deps.db, ring, integrationId, patch.webhookSecret);
  const r = await handleCommand(
    deps.store,
    gitIntegrationDecider,
    gitIntegrationStream(ctx.siteId, integrationId),
    {
      type: 'UpdateIntegration',
      data: {
        integrationId,
        changes,
        ...(syncConfig ? { syncConfig } : {}),
        at: ctx.now.toISOString(),
        by: ctx.actor.id,
      },
    },
    { metadata: ctx.metadata },
  );
  return recordOf(deps, ctx.siteId, r.state!);
}

/** Deletes an integration and shreds its key: its token and secret can never be opened again. */
export async function deleteIntegration(deps: Deps, ctx: Ctx, integrationId: string): Promise<void> {
  await handleCommand(
    deps.store,
    gitIntegrationDecider,
    gitIntegrationStream(ctx.siteId, integrationId),
    { type: 'DeleteIntegration', data: { integrationId, at: ctx.now.toISOString(), by: ctx.actor.id } },
    { metadata: ctx.metadata },
  );
  await shred(deps.db, integrationId);
}

/** The integration's webhook secret in clear, or null (no such integration on the site, or of another provider). */
export async function webhookSecretOf(
  deps: Deps,
  siteId: string,
  provider: GitProvider,
  integrationId: string,
): Promise<string | null> {
  const state = await findIntegration(deps, siteId, integrationId);
  if (!state || state.provider !== provider) return null;
  return unseal(deps.db, deps.config.keyring, integrationId, state.webhookSecret);
}

/**
 * The payload of a recorded delivery in clear, or null once its integration was deleted (its key destroyed): what
 * the processing of deliveries reads.
 */
export async function deliveryPayload(
  deps: Pick<AppDeps, 'db' | 'config'>,
  e: { integrationId: string; payload: string },
): Promise<unknown> {
  const text = await unseal(deps.db, deps.config.keyring, e.integrationId, e.payload);
  return text === null ? null : (JSON.parse(text) as unknown);
}

/** Records a verified delivery once per integration and delivery key; false when it had been recorded already. */
export async function recordDelivery(
  deps: Deps,
  ctx: Ctx,
  d: { integrationId: string; provider: GitProvider; key: string; deliveryId: string; event: string; payload: unknown },
): Promise<boolean> {
  const payload = await seal(deps.db, deps.config.keyring, d.integrationId, JSON.stringify(d.payload));
  const r = await handleCommand(
    deps.store,
    gitDeliveryDecider,
    gitDeliveryStream(ctx.siteId, d.integrationId, d.key),
    { type: 'RecordDelivery', data: { ...d, payload, at: ctx.now.toISOString() } },
    { metadata: ctx.metadata },
  );
  return r.events.length > 0;
}

/** Stores the tokens an OAuth exchange or refresh gave (sealed), in the name of `ctx.actor`. */
export async function storeOAuthTokens(
  deps: Deps,
  ctx: Ctx,
  integrationId: string,
  t: { token: string; refreshToken: string | null; expiresAt: string | null },
): Promise<IntegrationRecord> {
  const ring = deps.config.keyring;
  const r = await handleCommand(
    deps.store,
    gitIntegrationDecider,
    gitIntegrationStream(ctx.siteId, integrationId),
    {
      type: 'UpdateIntegration',
      data: {
        integrationId,
        changes: {
          token: await seal(deps.db, ring, integrationId, t.token),
          refreshToken: t.refreshToken === null ? null : await seal(deps.db, ring, integrationId, t.refreshToken),
          tokenExpiresAt: t.expiresAt,
        },
        at: ctx.now.toISOString(),
        by: ctx.actor.id,
      },
    },
    { metadata: ctx.metadata },
  );
  return recordOf(deps, ctx.siteId, r.state!);
}
