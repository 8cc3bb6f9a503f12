import type { AppDeps } from '../../../deps.ts';
import { handleCommands } from '../../../kernel/es/handle-command.ts';
import type { CommandContext } from '../../../kernel/http/command-meta.ts';
import { DomainError } from '../../../kernel/http/errors.ts';
import { newId } from '../../../kernel/ids.ts';
import { findUserByEmail } from '../../../../projections/users/index.ts';
import { newIdentityCommands } from '../identity.ts';
import { checkPassword } from '../password-policy.ts';
import { changeSiteRole, renameUser } from '../user.commands.ts';
import { inviteToSite, type InvitationAnswer } from './invitation.commands.ts';
import type { Member } from './members.ts';

type NewMember = { email: string; password?: string; firstName?: string; lastName?: string };

/**
 * Adds an address to a site with a role: a new address gets an account, a member at once; an address that has an
 * account (of any site, or taken a moment ago) is never attached: its owner is invited and accepts.
 */
export async function addMember(
  deps: AppDeps,
  ctx: CommandContext,
  input: NewMember & { siteId: string; role: string; inviterEmail: string },
): Promise<{ userId: string } | { invitation: InvitationAnswer }> {
  if (input.password) checkPassword(input.password, input.email);
  const userId = await createMember(deps, ctx, input);
  if (userId) return { userId };
  const { siteId, email, role, inviterEmail } = input;
  // This route's 201 against 202 tells a taken address anyway (decisions: "Identities are global"): no need to wait.
  const { answer, later } = await inviteToSite(deps, ctx, { siteId, email, role, inviterEmail });
  await later();
  return { invitation: answer };
}

/** A new account for a new address, a member of the site; null when the address has one. */
async function createMember(
  deps: AppDeps,
  ctx: CommandContext,
  input: NewMember & { siteId: string; role: string },
): Promise<string | null> {
  if (await findUserByEmail(deps.db, input.email)) return null;
  const userId = newId();
  const { siteId, role, ...identity } = input;
  try {
    const commands = await newIdentityCommands(deps, { ...identity, userId, status: 'active' }, { siteId, role });
    await handleCommands(deps.store, commands, { metadata: ctx.metadata });
    return userId;
  } catch (err) {
    if (err instanceof DomainError && err.code === 'CONFLICT') return null;
    throw err;
  }
}

/** Changes a member's role and names on a site; the route checked who may change which. */
export async function updateMember(
  deps: AppDeps,
  ctx: CommandContext,
  input: { target: Member; siteId: string; role?: string; firstName?: string | null; lastName?: string | null },
): Promise<void> {
  const { target, siteId, role } = input;
  if (role !== undefined) await changeSiteRole(deps, ctx, { userId: target.userId, siteId, role });
  if (input.firstName === undefined && input.lastName === undefined) return;
  const keep = (given: string | null | undefined, old: string | null) => (given === undefined ? old : given);
  await renameUser(deps, ctx, {
    userId: target.userId,
    firstName: keep(input.firstName, target.firstName),
    lastName: keep(input.lastName, target.lastName),
  });
}
