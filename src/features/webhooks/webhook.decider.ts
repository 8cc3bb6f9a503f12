import type { Decider } from '../../kernel/es/decider.ts';
import type { Sealed } from '../../platform/privacy/pii.ts';
import {
  InvalidWebhookUrl,
  TooManyWebhooks,
  WebhookExists,
  WebhookNameTaken,
  WebhookNotFound,
} from './webhook.errors.ts';
import type { WebhookDefinition, WebhookEvent } from '../../contracts/webhooks/webhook.events.ts';
import { urlProblem } from './webhook.schema.ts';

/** A webhook as the site's stream folds it (its secret still sealed). */
export interface WebhookEntry extends WebhookDefinition {
  id: string;
  secret: Sealed;
  createdAt: string;
  updatedAt: string;
}

/** The site's webhooks, in the order they were created. */
export interface WebhooksState {
  webhooks: readonly WebhookEntry[];
}

/**
 * Brings the site's webhooks to a set of changes in one decision: deletes, then updates, then creates, so an
 * import may rename or replace webhooks freely; names must be unique once all are applied.
 */
export type ChangeWebhooks = {
  type: 'ChangeWebhooks';
  data: {
    creates: { webhookId: string; definition: WebhookDefinition; secret: Sealed }[];
    updates: { webhookId: string; changes: Partial<WebhookDefinition> & { secret?: Sealed } }[];
    deletes: string[];
    now: string;
    by: string;
  };
};

/** Webhooks one site may have (the configuration manifest's limit too). */
export const MAX_WEBHOOKS = 200;

const KEYS = ['name', 'url', 'events', 'collections', 'enabled', 'secret'] as const;
const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

function checkUrl(url: string | undefined): void {
  if (url === undefined) return;
  const problem = urlProblem(url);
  if (problem) throw new InvalidWebhookUrl(problem);
}

/** The changes that differ from the webhook, in a fixed key order (no key of the input becomes an object key). */
function changed(w: WebhookEntry, changes: Partial<WebhookDefinition> & { secret?: Sealed }) {
  const differs = <K extends (typeof KEYS)[number]>(k: K) =>
    changes[k] !== undefined && !same(changes[k], w[k]) ? { [k]: changes[k] } : {};
  const out: Partial<WebhookDefinition> & { secret?: Sealed } = {};
  return KEYS.reduce((acc, k) => ({ ...acc, ...differs(k) }), out);
}

function decide(cmd: ChangeWebhooks, s: WebhooksState): WebhookEvent[] {
  const { now: at, by } = cmd.data;
  const events: WebhookEvent[] = [];
  let state = s;
  const find = (id: string) => state.webhooks.find((w) => w.id === id);
  const push = (e: WebhookEvent) => {
    events.push(e);
    state = evolve(state, e);
  };
  for (const webhookId of cmd.data.deletes) {
    if (!find(webhookId)) throw new WebhookNotFound({ webhookId });
    push({ type: 'WebhookDeleted', data: { webhookId, at, by } });
  }
  for (const u of cmd.data.updates) {
    const w = find(u.webhookId);
    if (!w) throw new WebhookNotFound({ webhookId: u.webhookId });
    checkUrl(u.changes.url);
    const changes = changed(w, u.changes);
    if (Object.keys(changes).length) push({ type: 'WebhookUpdated', data: { webhookId: w.id, changes, at, by } });
  }
  for (const c of cmd.data.creates) {
    if (find(c.webhookId)) throw new WebhookExists({ webhookId: c.webhookId });
    checkUrl(c.definition.url);
    const { name, url, events: names, collections, enabled } = c.definition;
    const data = { webhookId: c.webhookId, name, url, events: names, collections, enabled, secret: c.secret, at, by };
    push({ type: 'WebhookCreated', data });
  }
  if (cmd.data.creates.length && state.webhooks.length > MAX_WEBHOOKS) throw new TooManyWebhooks({ max: MAX_WEBHOOKS });
  const seen = new Set<string>();
  for (const w of state.webhooks) {
    if (seen.has(w.name)) throw new WebhookNameTaken({ name: w.name });
    seen.add(w.name);
  }
  return events;
}

function evolve(s: WebhooksState, e: WebhookEvent): WebhooksState {
  switch (e.type) {
    case 'WebhookCreated': {
      const { webhookId, at, by: _by, ...rest } = e.data;
      const entry: WebhookEntry = { ...rest, id: webhookId, createdAt: at, updatedAt: at };
      return { webhooks: [...s.webhooks, entry] };
    }
    case 'WebhookUpdated': {
      const { webhookId, changes, at } = e.data;
      return {
        webhooks: s.webhooks.map((w) => (w.id === webhookId ? { ...w, ...changed(w, changes), updatedAt: at } : w)),
      };
    }
    case 'WebhookDeleted':
      return { webhooks: s.webhooks.filter((w) => w.id !== e.data.webhookId) };
  }
}

/** The site's webhooks: pure decide/evolve; ids, sealed secrets and time arrive in the command. */
export const webhooksDecider: Decider<WebhooksState, ChangeWebhooks, WebhookEvent> = {
  initialState: () => ({ webhooks: [] }),
  decide,
  evolve,
};

/** The definition of a folded webhook, as configuration shows it. */
export const definitionOf = (w: WebhookEntry): WebhookDefinition => ({
  name: w.name,
  url: w.url,
  events: w.events,
  collections: w.collections,
  enabled: w.enabled,
});
