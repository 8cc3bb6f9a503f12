import type { AppDeps } from '../../deps.ts';
import { handleCommands } from '../../kernel/es/handle-command.ts';
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
 * Signs up a subscriber of a site that accepts sign-ups. An address with an account gets a mail instead of a second
 * account, and the caller learns nothing: both paths spend the same work (one password hash, one append to the
 * log, one signed link, one mail) and end alike.
 */
export async function signUp(
  deps: AppDeps,
  ctx: CommandContext,
  input: { siteId: string; email: string; password: string; firstName?: string; lastName?: string },
): Promise<void> {
  const { siteId, email } = input;
  const site = await findSite(deps.db, siteId);
  if (site?.settings.public_registration !== true) throw new SignUpClosed({ siteId });
  checkPassword(input.password, email);
  const userId = newId();
  const passwordHash = await hashPassword(input.password);
  const existing = await findUserByEmail(deps.db, email);
  if (existing) {
    await recordSignUpAttempt(deps, ctx, { userId: existing.userId, siteId });
    return mailAccountExists(deps, siteId, existing);
  }
  const identity = { userId, email, passwordHash, firstName: input.firstName, lastName: input.lastName };
  try {
    const commands = await newIdentityCommands(
      deps,
      { ...identity, status: 'unverified' },
      { siteId, role: 'subscriber' },
    );
    await handleCommands(deps.store, commands, { metadata: asUser(ctx, userId).metadata });
  } catch (err) {
    // The address was claimed meanwhile (or under its legacy name): the same generic answer.
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

/** Mails the verification link again to an unverified address, and a note that nothing waits to any other. */
export async function resendVerification(deps: AppDeps, input: { email: string }): Promise<void> {
  const user = await findUserByEmail(deps.db, input.email);
  if (user?.status !== 'unverified') return mailNothingToSend(deps, input.email, 'verify');
  const siteId = Object.keys(user.roles)[0] ?? SYSTEM_SITE;
  await mailVerification(deps, siteId, user.userId, user.email!);
}
