import type { AppDeps } from '../../deps.ts';
import type { Decider } from '../../kernel/es/decider.ts';
import type { DomainEvent } from '../../kernel/es/event.ts';
import { handleCommand } from '../../kernel/es/handle-command.ts';
import type { CommandContext } from '../../kernel/http/command-meta.ts';
import { SYSTEM_SITE } from '../../kernel/tenancy/site.ts';
import { instanceAdminIds } from '../../../projections/users/index.ts';
import { LastInstanceAdmin } from './erasure.errors.ts';

/** An instance administrator's erasure was claimed: from now on they no longer count as one who can still act. */
export type InstanceAdminErasureClaimed = DomainEvent<
  'InstanceAdminErasureClaimed',
  { subjectId: string; by: string; at: string }
>;

/** Claim the erasure of an instance administrator, naming those who can still act (the users read model). */
export interface ClaimInstanceAdminErasure {
  subjectId: string;
  instanceAdmins: string[];
  by: string;
  at: string;
}

/** The one stream every instance administrator's erasure is claimed on, so two of them are decided in turn. */
export const instanceAdminErasuresStream = () => `${SYSTEM_SITE}/instance-admin-erasures`;

/**
 * Erasing instance administrators one after another (or two at once, each by the other) must never leave none: the
 * claims are decided in turn on one stream, each against those claimed before it, whose erasures may not have
 * reached the read model yet.
 */
export const instanceAdminClaimDecider: Decider<
  ReadonlySet<string>,
  ClaimInstanceAdminErasure,
  InstanceAdminErasureClaimed
> = {
  initialState: () => new Set<string>(),
  evolve: (claimed, e) => new Set([...claimed, e.data.subjectId]),
  decide: (c, claimed) => {
    if (claimed.has(c.subjectId)) return [];
    const remaining = c.instanceAdmins.filter((id) => id !== c.subjectId && !claimed.has(id));
    if (remaining.length === 0) throw new LastInstanceAdmin();
    return [{ type: 'InstanceAdminErasureClaimed', data: { subjectId: c.subjectId, by: c.by, at: c.at } }];
  },
};

/** Claims the erasure of an instance administrator, or refuses it when no other one could still act. */
export async function claimInstanceAdminErasure(deps: AppDeps, ctx: CommandContext, subjectId: string): Promise<void> {
  const instanceAdmins = await instanceAdminIds(deps.db);
  await handleCommand(
    deps.store,
    instanceAdminClaimDecider,
    instanceAdminErasuresStream(),
    { subjectId, instanceAdmins, by: ctx.actor.id, at: ctx.now.toISOString() },
    { metadata: { ...ctx.metadata, siteId: SYSTEM_SITE } },
  );
}
