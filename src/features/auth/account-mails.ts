import type { AppDeps } from '../../deps.ts';
import { queueMail } from '../../kernel/mail/outbox.ts';
import type { UserRow } from '../../../projections/users/users.queries.ts';

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

/** Someone tried to sign up with an address that has an account: tell its owner, tell the caller nothing. */
export async function mailAccountExists(deps: AppDeps, siteId: string, email: string): Promise<void> {
  await queueMail(deps.db, {
    siteId,
    to: email,
    kind: 'account-exists',
    subject: 'You already have an account',
    body: `Someone (perhaps you) tried to sign up with this address, which already has an account. If you forgot your password, use "forgot password". Otherwise ignore this mail.\n`,
  });
}

/**
 * Sends a one-hour reset link. The token names the password version it may replace, so it works once and
 * dies with any other password change; nothing about it is stored.
 */
export async function mailPasswordReset(deps: AppDeps, user: UserRow): Promise<void> {
  const token = await deps.tokens.issuePurpose(
    'reset-password',
    user.userId,
    { pv: user.passwordVersion },
    RESET_TTL_S,
  );
  await queueMail(deps.db, {
    siteId: '_system',
    to: user.email!,
    kind: 'reset-password',
    subject: 'Reset your password',
    body: `Set a new password within one hour: ${publicUrl(deps)}/reset-password?token=${token}\n\nToken: ${token}\n\nIf you did not ask for this, ignore this mail.\n`,
  });
}
