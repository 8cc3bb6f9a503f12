import type { AppDeps } from '../../../deps.ts';
import { aggregateStream } from '../../../kernel/es/aggregate-stream.ts';
import { handleCommands, streamCommand } from '../../../kernel/es/handle-command.ts';
import type { Later } from '../../../kernel/http/after-answer.ts';
import type { CommandContext } from '../../../kernel/http/command-meta.ts';
import { DomainError } from '../../../kernel/http/errors.ts';
import { newId } from '../../../kernel/ids.ts';
import { queueMail } from '../../../platform/mail/outbox.ts';
import { own } from '../../../kernel/safe/keys.ts';
import { findSite } from '../../../../projections/sites/index.ts';
import { findUserByEmail, findUserById, type UserRow } from '../../../../projections/users/index.ts';
import { publicUrl } from '../account-mails.ts';
import { asUser } from '../acting-user.ts';
import { UsedOrInvalidLink } from '../auth.errors.ts';
import { newIdentityCommands } from '../identity.ts';
import { consumePasswordLink } from '../password.commands.ts';
import { verifyPassword } from '../passwords.ts';
import { openSession, type LoginData, type SessionClient } from '../session.commands.ts';
import { acceptSiteInvitation, renameUser } from '../user.commands.ts';
import { userDecider, type UserCommand, type UserState } from '../user.decider.ts';
import { userStream, type UserEvent } from '../../../contracts/auth/user.events.ts';
import { AlreadyMember, InvitedPasswordMismatch } from './users.errors.ts';

const INVITE_TTL_S = 7 * 24 * 3600;

/** What a site admin is told about an invitation: the same for a new address and for an existing account. */
export interface InvitationAnswer {
  id: string;
  email: string;
  role: string;
  status: 'invited';
}

/** Who invites which address to which site, with which role. */
interface Invitation {
  siteId: string;
  email: string;
  role: string;
  /** The inviter's address, named in the mail. */
  inviterEmail: string;
}

/** An account that still has to choose its password (a fresh invitation, or created by an admin without one). */
export const needsPassword = (u: UserRow) => u.status === 'invited' || !u.passwordHash;

const inviteCommand = (userId: string, data: Omit<Extract<UserCommand, { type: 'InviteToSite' }>['data'], 'userId'>) =>
  streamCommand({
    decider: userDecider,
    streamId: userStream(userId),
    command: { type: 'InviteToSite', data: { userId, ...data } },
  });

/**
 * Invites an address to a site with a role. A new address gets an identity in state `invited`; an
 * address that has an account (on any site) keeps it untouched. Either way the site gets no member until the
 * owner accepts the mailed link, and the caller learns nothing about the account: not whether it existed, not its
 * name, not its id (the answer names the invitation), nor by the answer's time: the identity, the invitation and
 * the mail are `later`, for after the answer. A member of this site already is a 409: the caller sees its members
 * anyway.
 */
export async function inviteToSite(
  deps: AppDeps,
  ctx: CommandContext,
  input: Invitation & { firstName?: string; lastName?: string },
): Promise<{ answer: InvitationAnswer; later: Later }> {
  const { siteId, role } = input;
  const invitationId = newId();
  const invite = { siteId, role, invitationId, invitedBy: ctx.actor.id, now: ctx.now.toISOString() };
  const answer: InvitationAnswer = { id: invitationId, email: input.email, role: input.role, status: 'invited' };
  if (own((await findUserByEmail(deps.db, input.email))?.roles, siteId)) throw new AlreadyMember();
  return { answer, later: () => deliverInvitation(deps, ctx, input, invite) };
}

/** The invitation itself: a new identity when the address has none, the offer on its stream, the mail. */
async function deliverInvitation(
  deps: AppDeps,
  ctx: CommandContext,
  input: Invitation & { firstName?: string; lastName?: string },
  invite: Omit<Extract<UserCommand, { type: 'InviteToSite' }>['data'], 'userId'>,
): Promise<void> {
  for (let attempt = 0; attempt < 2; attempt++) {
    const existing = await findUserByEmail(deps.db, input.email);
    // Became a member since the answer (the owner accepted an earlier invitation): nothing to offer.
    if (own(existing?.roles, input.siteId)) return;
    const userId = existing?.userId ?? newId();
    const commands = existing
      ? [inviteCommand(userId, invite)]
      : await newIdentityCommands(deps, { ...input, userId, status: 'invited' }, null).then(
          (c) => [...c, inviteCommand(userId, invite)],
          (err: unknown) => (isConflict(err) ? null : Promise.reject(err)),
        );
    try {
      if (!commands) return;
      await handleCommands(deps.store, commands, { metadata: ctx.metadata });
    } catch (err) {
      // A concurrent invitation made the identity first: invite that one.
      if (isConflict(err) && !existing) continue;
      throw err;
    }
    return mailInvitation(deps, (await findUserById(deps.db, userId))!, input);
  }
  // The address is claimed but has no account to invite (an erased one): nothing to send, as answered.
}

const isConflict = (err: unknown) => err instanceof DomainError && err.code === 'CONFLICT';

async function mailInvitation(deps: AppDeps, user: UserRow, input: Invitation) {
  const { siteId } = input;
  const site = (await findSite(deps.db, siteId))!;
  const token = await deps.tokens.issuePurpose(
    'invite',
    user.userId,
    { pv: user.passwordVersion, site: siteId },
    INVITE_TTL_S,
  );
  const how = needsPassword(user)
    ? 'Accept within 7 days and choose your password'
    : 'Accept within 7 days with the password of your existing account';
  const inviter = input.inviterEmail || 'an administrator';
  await queueMail(deps.db, {
    siteId,
    to: input.email,
    kind: 'invite',
    subject: `You are invited to ${site.name}`,
    body: `${inviter} invited you to ${site.name} as ${input.role}.\n\n${how}: ${publicUrl(deps)}/accept-invite?token=${token}\n\nIf you do not want to join, ignore this mail: nothing changes for your account.\n`,
  });
}

async function hasOpenInvitation(deps: AppDeps, userId: string, siteId: string): Promise<boolean> {
  const { state } = await aggregateStream<UserState, UserEvent>(
    deps.store,
    userStream(userId),
    userDecider.evolve,
    () => userDecider.initialState(),
  );
  return state.exists && own(state.invitations, siteId) !== undefined;
}

/**
 * Spends an invitation link. An account without a password chooses one (the link names its password version, so
 * it works once); an account with one proves it is its owner by that password, and keeps it. Then the membership
 * the site offered begins, the names given are set, and a session answers. A link without a site (issued before
 * invitations were offers) only sets the password.
 */
export async function acceptInvitation(
  deps: AppDeps,
  ctx: CommandContext,
  input: { token: string; password: string; firstName?: string; lastName?: string; client: SessionClient },
): Promise<LoginData> {
  const claims = await deps.tokens.verifyPurpose('invite', input.token);
  const user = claims ? await findUserById(deps.db, claims.sub) : null;
  if (!claims || !user) throw new UsedOrInvalidLink();
  const siteId = typeof claims.site === 'string' ? claims.site : null;
  // A used, superseded-by-membership or foreign link changes nothing, not even a password.
  if (siteId && !(await hasOpenInvitation(deps, user.userId, siteId))) throw new UsedOrInvalidLink();
  const self = asUser(ctx, user.userId);
  if (!siteId || needsPassword(user))
    await consumePasswordLink(deps, ctx, { purpose: 'invite', token: input.token, password: input.password });
  else if (!(await verifyPassword(user.passwordHash, input.password))) throw new InvitedPasswordMismatch();
  if (siteId) await acceptSiteInvitation(deps, self, { userId: user.userId, siteId });
  if (input.firstName !== undefined || input.lastName !== undefined) {
    const names = { firstName: input.firstName ?? user.firstName, lastName: input.lastName ?? user.lastName };
    await renameUser(deps, self, { userId: user.userId, ...names });
  }
  const fresh = (await findUserById(deps.db, user.userId))!;
  return openSession(deps, ctx, { user: fresh, amr: ['pwd'], client: input.client });
}
