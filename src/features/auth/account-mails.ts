import type { AppDeps } from '../../deps.ts';
import { queueMail } from '../../platform/mail/outbox.ts';
import type { UserRow } from '../../../projections/users/index.ts';

const VERIFY_TTL_S = 24 * 3600;
const RESET_TTL_S = 3600;

export const publicUrl = (deps: AppDeps) =>
  (deps.config.SVC_PUBLIC_URL ?? `http://localhost:${deps.config.PORT}`).replace(/\/$/, '');

/** Sends the address-verification link (a 24-hour token; verifying twice is harmless). */
export async function mailVerification(deps: AppDeps, siteId: string, userId: string, email: string): Promise<void> {
  const token = await deps.tokens.issuePurpose('verify-email', userId, {}, VERIFY_TTL_S);
  await queueMail(deps.db, {
    siteId,
    to: email,
    kind: 'verify-email',
    subject: 'Confirm your email address',
    body: `Confirm your address within 24 hours: ${publicUrl(deps)}/verify-email?token=${token}\n\nToken: ${token}\n`,
  });
}

/**
 * Someone tried to sign up with an address that has an account: tell its owner (with a reset link, in case they
 * forgot), tell the caller nothing. Signing the link costs what the verification link of a new sign-up costs.
 */
export async function mailAccountExists(deps: AppDeps, siteId: string, user: UserRow): Promise<void> {
  const token = await resetToken(deps, user);
  await queueMail(deps.db, {
    siteId,
    to: user.email!,
    kind: 'account-exists',
    subject: 'You already have an account',
    body: `Someone (perhaps you) tried to sign up with this address, which already has an account. If you forgot your password, set a new one within one hour: ${publicUrl(deps)}/reset-password?token=${token}\n\nOtherwise ignore this mail.\n`,
  });
}

/**
 * A recovery request (reset link, verification link) for an address with nothing to send: its owner learns of
 * the request, and the caller's answer and the mail written are those of an address with an account.
 */
export async function mailNothingToSend(deps: AppDeps, email: string, what: 'reset' | 'verify'): Promise<void> {
  await queueMail(deps.db, {
    siteId: '_system',
    to: email,
    kind: what === 'reset' ? 'reset-no-account' : 'verify-nothing-pending',
    subject: what === 'reset' ? 'Password reset requested' : 'Email verification requested',
    body:
      what === 'reset'
        ? 'Someone (perhaps you) asked to reset the password of this address, but it has no account. If that was not you, ignore this mail.\n'
        : 'Someone (perhaps you) asked for a verification link for this address, but nothing waits for verification. If that was not you, ignore this mail.\n',
  });
}

const resetToken = (deps: AppDeps, user: UserRow) =>
  deps.tokens.issuePurpose('reset-password', user.userId, { pv: user.passwordVersion }, RESET_TTL_S);

/**
 * Sends a one-hour reset link. The token names the password version it may replace, so it works once and
 * dies with any other password change; nothing about it is stored.
 */
export async function mailPasswordReset(deps: AppDeps, user: UserRow): Promise<void> {
  const token = await resetToken(deps, user);
  await queueMail(deps.db, {
    siteId: '_system',
    to: user.email!,
    kind: 'reset-password',
    subject: 'Reset your password',
    body: `Set a new password within one hour: ${publicUrl(deps)}/reset-password?token=${token}\n\nToken: ${token}\n\nIf you did not ask for this, ignore this mail.\n`,
  });
}
