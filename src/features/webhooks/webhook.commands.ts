import type { AppDeps } from '../../deps.ts';
import type { Db } from '../../kernel/db/database.ts';

import type { EventStore } from '../../kernel/es/event-store.ts';
import { handleCommand, readState, streamCommand, type StreamCommand } from '../../kernel/es/handle-command.ts';
import type { CommandContext } from '../../kernel/http/command-meta.ts';
import { newId } from '../../kernel/ids.ts';
import type { Keyring } from '../../kernel/crypto/keyring.ts';
import { seal, shred } from '../../platform/privacy/pii.ts';
import type { WebhookRecord } from '../../../projections/webhooks/index.ts';
import {
  definitionOf,
  webhooksDecider,
  type ChangeWebhooks,
  type WebhookEntry,
  type WebhooksState,
} from './webhook.decider.ts';
import { InvalidWebhookUrl, WebhookNotFound } from './webhook.errors.ts';
import { savedUrlProblem } from '../../platform/net/saved-url.ts';
import { webhooksStream, type WebhookDefinition, type WebhookEvent } from '../../contracts/webhooks/webhook.events.ts';
import { generateSecret, type WebhookConfig, type WebhookCreate, type WebhookPatch } from './webhook.schema.ts';
import { ofType, domainEvent } from '../../kernel/es/on-events.ts';
import type { StoredEvent } from '../../kernel/es/event.ts';

type Ctx = Pick<CommandContext, 'siteId' | 'now' | 'metadata' | 'actor'>;
type Deps = Pick<AppDeps, 'db' | 'store' | 'config'>;

/** A folded webhook as the API shows it: the secret stays behind. */
export const recordOf = (w: WebhookEntry): WebhookRecord => ({
  id: w.id,
  ...definitionOf(w),
  createdAt: w.createdAt,
  updatedAt: w.updatedAt,
});

/** The site's webhooks folded from its stream, up to `asOf` when given. */
export async function siteWebhooks(store: EventStore, siteId: string, asOf?: Date): Promise<WebhooksState> {
  if (!asOf) return (await readState(store, webhooksDecider, webhooksStream(siteId))).state;
  let state = webhooksDecider.initialState();
  for await (const e of store.readStream<WebhookEvent>(webhooksStream(siteId), { until: asOf }))
    state = webhooksDecider.evolve(state, domainEvent(e));
  return state;
}

const change = (ctx: Ctx, data: Partial<Omit<ChangeWebhooks['data'], 'now' | 'by'>>): ChangeWebhooks => ({
  type: 'ChangeWebhooks',
  data: { creates: [], updates: [], deletes: [], ...data, now: ctx.now.toISOString(), by: ctx.actor.id },
});

const send = (deps: Deps, ctx: Ctx, command: ChangeWebhooks) =>
  handleCommand(deps.store, webhooksDecider, webhooksStream(ctx.siteId), command, { metadata: ctx.metadata });

/**
 * A target the service may post to, checked when it is saved by the outbound helper's address rules (unless
 * SVC_WEBHOOK_ALLOW_PRIVATE): no private, loopback or link-local address in any spelling. Each send checks again.
 */
export async function checkWebhookTarget(allowPrivate: boolean, url: string | undefined, path?: string[]) {
  if (url === undefined) return;
  const problem = await savedUrlProblem(url, { allowPrivate });
  if (problem) throw new InvalidWebhookUrl({ ...problem, ...(path ? { path } : {}) });
}

const entryOf = (state: WebhooksState, webhookId: string) => {
  const w = state.webhooks.find((x) => x.id === webhookId);
  if (!w) throw new WebhookNotFound({ webhookId });
  return w;
};

/** Adds a webhook; without a secret one is generated, and returned here only (it is stored sealed). */
export async function createWebhook(
  deps: Deps,
  ctx: Ctx,
  body: WebhookCreate,
): Promise<{ record: WebhookRecord; secret: string | null }> {
  const { secret, ...definition } = body;
  await checkWebhookTarget(deps.config.SVC_WEBHOOK_ALLOW_PRIVATE, definition.url);
  const webhookId = newId();
  const plain = secret ?? generateSecret();
  const sealed = await seal(deps.db, deps.config.keyring, webhookId, plain);
  const r = await send(deps, ctx, change(ctx, { creates: [{ webhookId, definition, secret: sealed }] }));
  return { record: recordOf(entryOf(r.state, webhookId)), secret: secret === undefined ? plain : null };
}

/** Changes a webhook's settings; a `secret` replaces the signing secret. */
export async function updateWebhook(deps: Deps, ctx: Ctx, input: { webhookId: string; patch: WebhookPatch }) {
  const { webhookId, patch } = input;
  // Known before anything is sealed under the id the request names.
  entryOf(await siteWebhooks(deps.store, ctx.siteId), webhookId);
  const { secret, ...rest } = patch;
  await checkWebhookTarget(deps.config.SVC_WEBHOOK_ALLOW_PRIVATE, rest.url);
  const changes =
    secret === undefined ? rest : { ...rest, secret: await seal(deps.db, deps.config.keyring, webhookId, secret) };
  const r = await send(deps, ctx, change(ctx, { updates: [{ webhookId, changes }] }));
  return recordOf(entryOf(r.state, webhookId));
}

/** Removes a webhook and shreds its secret's key: its pending deliveries are abandoned. */
export async function deleteWebhook(deps: Deps, ctx: Ctx, input: { webhookId: string }): Promise<void> {
  await send(deps, ctx, change(ctx, { deletes: [input.webhookId] }));
  await shred(deps.db, input.webhookId);
}

/** The site's webhooks as configuration, sorted by name; `asOf` folds the stream up to that time. */
export async function webhookConfigs(store: EventStore, siteId: string, asOf?: Date): Promise<WebhookConfig[]> {
  const { webhooks } = await siteWebhooks(store, siteId, asOf);
  return webhooks
    .map((w) => ({ ...definitionOf(w), events: [...w.events], collections: w.collections && [...w.collections] }))
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

const asDefinition = (c: WebhookConfig): WebhookDefinition => ({
  name: c.name,
  url: c.url,
  events: c.events as WebhookDefinition['events'],
  collections: c.collections,
  enabled: c.enabled,
});

/**
 * One StreamCommand for `handleCommands` that brings the site's webhooks to the changes in one decision: create
 * (a new name; a secret is generated and sealed, so this needs `db` and is async), update (by name), delete (by
 * name). null when there is nothing to change. Names are resolved against the stream's state at each attempt.
 */
export async function webhookConfigCommand(
  db: Db,
  ring: Keyring,
  siteId: string,
  changes: { create: WebhookConfig[]; update: WebhookConfig[]; delete: string[] },
  now: string,
  by: string,
  allowPrivate = false,
): Promise<{ command: StreamCommand; secrets: { name: string; secret: string }[] } | null> {
  if (!changes.create.length && !changes.update.length && !changes.delete.length) return null;
  for (const c of [...changes.create, ...changes.update])
    await checkWebhookTarget(allowPrivate, c.url, ['webhooks', c.name, 'url']);
  const secrets: { name: string; secret: string }[] = [];
  const creates = await Promise.all(
    changes.create.map(async (c) => {
      const webhookId = newId();
      const secret = generateSecret();
      secrets.push({ name: c.name, secret });
      return { webhookId, definition: asDefinition(c), secret: await seal(db, ring, webhookId, secret) };
    }),
  );
  const byName = (state: WebhooksState, name: string) => {
    const w = state.webhooks.find((x) => x.name === name);
    if (!w) throw new WebhookNotFound({ name });
    return w;
  };
  const command = (state: WebhooksState): ChangeWebhooks | null => {
    const updates = changes.update.map((u) => ({ webhookId: byName(state, u.name).id, changes: asDefinition(u) }));
    const deletes = changes.delete.map((name) => byName(state, name).id);
    const data = { creates, updates, deletes, now, by };
    const cmd: ChangeWebhooks = { type: 'ChangeWebhooks', data };
    return webhooksDecider.decide(cmd, state).length ? cmd : null;
  };
  return {
    command: streamCommand<WebhooksState, ChangeWebhooks, WebhookEvent>({
      decider: webhooksDecider,
      streamId: webhooksStream(siteId),
      command,
    }),
    secrets,
  };
}

/** After a configuration apply: the keys of the secrets of the webhooks it deleted are shredded. */
export async function shredDeletedSecrets(db: Db, events: readonly StoredEvent[]): Promise<void> {
  for (const e of ofType(events as readonly StoredEvent<WebhookEvent>[], 'WebhookDeleted'))
    await shred(db, e.data.webhookId);
}
