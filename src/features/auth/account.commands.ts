import type { AppDeps } from '../../deps.ts';
import { handleCommands } from '../../kernel/es/handle-command.ts';
import type { Later } from '../../kernel/http/after-answer.ts';
import type { CommandContext } from '../../kernel/http/command-meta.ts';
import { DomainError } from '../../kernel/http/errors.ts';
import { newId } from '../../kernel/ids.ts';
import { SYSTEM_SITE } from '../../kernel/tenancy/site.ts';
import { findSite } from '../../../projections/sites/index.ts';
import { findUserByEmail, findUserById } from '../../../projections/users/index.ts';
import { mailAccountExists, mailNothingToSend, mailVerification } from './account-mails.ts';
import { asUser, asUserIfAnonymous } from './acting-user.ts';
import { InvalidLink, SignUpClosed } from './auth.errors.ts';
import { newIdentityCommands } from './identity.ts';
import { checkPassword } from './password-policy.ts';
import { hashPassword } from './passwords.ts';
import { recordSignUpAttempt, verifyEmail } from './user.commands.ts';

/**
 * Signs up a subscriber of a site that accepts sign-ups. The caller learns nothing of the address: the work before
 * the answer is the same on both paths (the site's setting, the password rule, one hash, one lookup), and what
 * depends on the address is returned for after the answer: an address with an account records the attempt and
 * mails its owner, a new one becomes an unverified subscriber and gets its verification link.
 */
export async function signUp(
  deps: AppDeps,
  ctx: CommandContext,
  input: { siteId: string; email: string; password: string; firstName?: string; lastName?: string },
): Promise<Later> {
  const { siteId, email } = input;
  const site = await findSite(deps.db, siteId);
  if (site?.settings.public_registration !== true) throw new SignUpClosed({ siteId });
  checkPassword(input.password, email);
  const passwordHash = await hashPassword(input.password);
  const existing = await findUserByEmail(deps.db, email);
  if (existing)
    return async () => {
      await recordSignUpAttempt(deps, ctx, { userId: existing.userId, siteId });
      await mailAccountExists(deps, siteId, existing);
    };
  const identity = { userId: newId(), email, passwordHash, firstName: input.firstName, lastName: input.lastName };
  return () => createSubscriber(deps, ctx, siteId, identity);
}

/** The new address's identity, its subscriber role on the site and its verification mail, in that order. */
async function createSubscriber(
  deps: AppDeps,
  ctx: CommandContext,
  siteId: string,
  identity: { userId: string; email: string; passwordHash: string; firstName?: string; lastName?: string },
): Promise<void> {
  const { userId, email } = identity;
  try {
    const commands = await newIdentityCommands(
      deps,
      { ...identity, status: 'unverified' },
      { siteId, role: 'subscriber' },
    );
    await handleCommands(deps.store, commands, { metadata: asUser(ctx, userId).metadata });
  } catch (err) {
    // The address was claimed meanwhile (or under its legacy name): nothing to do, as the answer promised nothing.
    if (err instanceof DomainError && err.code === 'CONFLICT') return;
    throw err;
  }
  await mailVerification(deps, siteId, userId, email);
}

/** Verifies an address from its emailed link (verifying twice is harmless). */
export async function confirmEmail(deps: AppDeps, ctx: CommandContext, input: { token: string }): Promise<void> {
  const claims = await deps.tokens.verifyPurpose('verify-email', input.token);
  const user = claims ? await findUserById(deps.db, claims.sub) : null;
  if (!claims || !user) throw new InvalidLink();
  await verifyEmail(deps, asUserIfAnonymous(ctx, user.userId), { userId: user.userId });
}

/**
 * Mails the verification link again to an unverified address, and a note that nothing waits to any other. The
 * route runs it after its answer, so the lookup and the link's signature never show in the answer's time.
 */
export async function resendVerification(deps: AppDeps, input: { email: string }): Promise<void> {
  const user = await findUserByEmail(deps.db, input.email);
  if (user?.status !== 'unverified') return mailNothingToSend(deps, input.email, 'verify');
  const siteId = Object.keys(user.roles)[0] ?? SYSTEM_SITE;
  await mailVerification(deps, siteId, user.userId, user.email!);
}
