import { isIP } from 'node:net';
import type { AppDeps } from '../../deps.ts';
import { handleCommand } from '../../kernel/es/handle-command.ts';
import type { CommandContext } from '../../kernel/http/command-meta.ts';
import { isPublicAddress } from '../../platform/net/address-policy.ts';
import { savedUrlProblem } from '../../platform/net/saved-url.ts';
import { pushSubscriptionDecider } from './push.decider.ts';
import { readAsSite } from '../../kernel/tenancy/site.ts';
import { subscriptionIdsOf } from '../../../projections/push-subscriptions/index.ts';
import { InvalidPushEndpoint, TooManySubscriptions } from './push.errors.ts';
import { pushSubscriptionStream, subscriptionId, type PushKeys } from '../../contracts/push/push.events.ts';

type Deps = Pick<AppDeps, 'store' | 'config' | 'db'>;

/** Browsers one user may have subscribed on a site (gone endpoints are removed at the next push to them). */
export const MAX_SUBSCRIPTIONS_PER_USER = 50;
type Ctx = Pick<CommandContext, 'siteId' | 'now' | 'metadata'>;

/**
 * An endpoint a push may be sent to: https, no credentials, and (unless SVC_PUSH_ALLOW_PRIVATE) not a private,
 * loopback or link-local address written as such. Names are resolved and checked again at every send.
 */
export function checkEndpoint(endpoint: string, allowPrivate: boolean): void {
  let url: URL;
  try {
    url = new URL(endpoint);
  } catch {
    throw new InvalidPushEndpoint({ reason: 'not_a_url' });
  }
  if (url.protocol !== 'https:') throw new InvalidPushEndpoint({ reason: 'not_https' });
  if (url.username || url.password) throw new InvalidPushEndpoint({ reason: 'credentials' });
  if (allowPrivate) return;
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (host === 'localhost' || host.endsWith('.localhost') || (isIP(host) && !isPublicAddress(host)))
    throw new InvalidPushEndpoint({ reason: 'private_address' });
}

/** Saves the caller's browser's subscription on the site (the same endpoint moves to the caller, keys renewed). */
export async function saveSubscription(
  deps: Deps,
  ctx: Ctx,
  input: { userId: string; endpoint: string; keys: PushKeys },
): Promise<{ id: string; created: boolean }> {
  checkEndpoint(input.endpoint, deps.config.SVC_PUSH_ALLOW_PRIVATE);
  // A name is resolved too, by the rule every saved URL follows (platform/net/saved-url.ts).
  const problem = await savedUrlProblem(input.endpoint, { allowPrivate: deps.config.SVC_PUSH_ALLOW_PRIVATE });
  if (problem?.reason === 'private_address') throw new InvalidPushEndpoint({ reason: 'private_address' });
  const id = subscriptionId(ctx.siteId, input.endpoint);
  const mine = await readAsSite(deps.db, ctx.siteId, (db) => subscriptionIdsOf(db, ctx.siteId, input.userId));
  if (mine.length >= MAX_SUBSCRIPTIONS_PER_USER && !mine.includes(id))
    throw new TooManySubscriptions({ max: MAX_SUBSCRIPTIONS_PER_USER });
  const r = await handleCommand(
    deps.store,
    pushSubscriptionDecider,
    pushSubscriptionStream(ctx.siteId, id),
    { type: 'SaveSubscription', data: { subscriptionId: id, ...input, now: ctx.now.toISOString() } },
    { metadata: ctx.metadata },
  );
  return { id, created: r.events.length > 0 && r.version === r.events.length };
}

/** Removes the caller's own subscription of that endpoint (404 when they have none there). */
export async function removeSubscription(
  deps: Deps,
  ctx: Ctx,
  input: { userId: string; endpoint: string },
): Promise<void> {
  const id = subscriptionId(ctx.siteId, input.endpoint);
  await handleCommand(
    deps.store,
    pushSubscriptionDecider,
    pushSubscriptionStream(ctx.siteId, id),
    {
      type: 'RemoveSubscription',
      data: { subscriptionId: id, userId: input.userId, reason: 'unsubscribed', now: ctx.now.toISOString() },
    },
    { metadata: ctx.metadata },
  );
}
