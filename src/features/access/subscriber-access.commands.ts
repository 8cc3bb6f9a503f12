import type { AppDeps } from '../../deps.ts';
import { handleCommands, streamCommand } from '../../kernel/es/handle-command.ts';
import { accessDecider, type AccessCommand, type AccessState } from './access.decider.ts';
import type { AccessCtx } from './access.commands.ts';
import { NoSubscriberGrant } from './access.errors.ts';
import { accessStream } from '../../contracts/access/access.events.ts';
import { checkRule } from './access.rules.ts';
import type { PermissionDef } from '../../contracts/access/access.types.ts';
import { siteAccess } from './site-access.ts';

const PREFIX = 'subscriber-access-';
/** The policy subscriber-access keeps per collection, attached to the subscriber role. */
const grantPolicy = (collection: string) => `${PREFIX}${collection}`;

/** A subscriber grant as the API shows it: read on one collection, maybe only its published rows. */
export interface SubscriberGrant {
  collection: string;
  publishedOnly: boolean;
  fields: string[];
}

/** The subscriber grants of a site's access model, read from their managed policies. */
export function subscriberGrants(s: AccessState): SubscriberGrant[] {
  return [...s.policies.values()]
    .filter((p) => p.id.startsWith(PREFIX))
    .map((p) => {
      const rule = p.permissions[0];
      return {
        collection: rule?.collection ?? p.id.slice(PREFIX.length),
        publishedOnly: rule?.conditions !== null,
        fields: rule?.fields ?? ['*'],
      };
    });
}

const onAccess = (siteId: string, command: (s: AccessState) => AccessCommand | null) =>
  streamCommand({ decider: accessDecider, streamId: accessStream(siteId), command });

/** Grants subscribers read on a collection, replacing its grant whole in one append. */
export async function grantSubscriberAccess(
  deps: Pick<AppDeps, 'store' | 'schemas'>,
  ctx: AccessCtx,
  grant: SubscriberGrant,
): Promise<void> {
  const { collection } = grant;
  const policyId = grantPolicy(collection);
  const rule: PermissionDef = {
    id: `${policyId}-read`,
    collection,
    action: 'read',
    fields: grant.fields,
    conditions: grant.publishedOnly ? { status: { _eq: 'published' } } : null,
    presets: null,
    validation: null,
  };
  checkRule(await deps.schemas.read(ctx.siteId), rule, ctx.now);
  const now = ctx.now.toISOString();
  const name = `Subscribers read ${collection}`;
  // Replace the grant whole, in one append: the policy, its one rule, and its attachment to subscriber.
  const steps: ((s: AccessState) => AccessCommand | null)[] = [
    (s) => (s.policies.has(policyId) ? { type: 'DeletePolicy', data: { id: policyId, now } } : null),
    () => ({ type: 'CreatePolicy', data: { id: policyId, name, description: null, now } }),
    () => ({ type: 'AddPermission', data: { policyId, permission: rule, now } }),
    () => ({ type: 'AttachPolicy', data: { policyId, target: { kind: 'role', id: 'subscriber' }, now } }),
  ];
  const commands = steps.map((step) => onAccess(ctx.siteId, step));
  await handleCommands(deps.store, commands, { metadata: ctx.metadata });
}

/** Revokes the subscribers' grant on a collection (404 when they have none). */
export async function revokeSubscriberAccess(
  deps: Pick<AppDeps, 'store'>,
  ctx: AccessCtx,
  input: { collection: string },
): Promise<void> {
  const policyId = grantPolicy(input.collection);
  if (!(await siteAccess(deps, ctx.siteId)).state.policies.has(policyId))
    throw new NoSubscriberGrant({ collection: input.collection });
  const now = ctx.now.toISOString();
  const remove = (s: AccessState): AccessCommand | null =>
    s.policies.has(policyId) ? { type: 'DeletePolicy', data: { id: policyId, now } } : null;
  await handleCommands(deps.store, [onAccess(ctx.siteId, remove)], { metadata: ctx.metadata });
}
