import type { AppDeps } from '../../deps.ts';
import type { EventMetadata } from '../../kernel/es/event.ts';
import { handleCommand, type StreamCommand } from '../../kernel/es/handle-command.ts';
import { DomainError } from '../../kernel/http/errors.ts';
import { seal } from '../../kernel/privacy/pii.ts';
import { findUserById, type UserRow } from '../../../projections/users/index.ts';
import { checkPassword } from './password-policy.ts';
import { emailClaimDecider } from './email-claim.decider.ts';
import { hashPassword } from './passwords.ts';
import { userDecider, type UserCommand } from './user.decider.ts';
import { assertNoLegacyClaim } from './address-hash.ts';
import { emailClaimStream, userStream } from './user.events.ts';
import { UsedOrInvalidLink } from './auth.errors.ts';

/**
 * The commands that make a new identity in one atomic append: the address's claim (so two sign-ups cannot share
 * it), the user with its personal data sealed under its own key, and its role on a site (none for an invited
 * identity: its membership begins when it accepts).
 */
export async function newIdentityCommands(
  deps: Pick<AppDeps, 'db' | 'clock' | 'store' | 'addresses'>,
  input: {
    userId: string;
    email: string;
    password?: string;
    /** The password's argon2 hash when the caller already spent it (so a path costs one hash, not two). */
    passwordHash?: string;
    firstName?: string | null;
    lastName?: string | null;
    status: 'active' | 'unverified' | 'invited';
  },
  membership: { siteId: string; role: string } | null,
): Promise<StreamCommand[]> {
  const { userId } = input;
  await assertNoLegacyClaim(deps.store, input.email);
  const now = deps.clock.now().toISOString();
  const sealed = (v: string | null | undefined) => (v ? seal(deps.db, userId, v) : Promise.resolve(null));
  const register: UserCommand = {
    type: 'RegisterUser',
    data: {
      userId,
      email: await seal(deps.db, userId, input.email),
      passwordHash: await sealedHash(deps, userId, input),
      firstName: await sealed(input.firstName),
      lastName: await sealed(input.lastName),
      instanceAdmin: false,
      status: input.status,
      now,
    },
  };
  return [
    {
      decider: emailClaimDecider,
      streamId: emailClaimStream(deps.addresses.hash(input.email)),
      command: { type: 'ClaimEmail', data: { userId, now } },
    },
    { decider: userDecider, streamId: userStream(userId), command: register },
    ...(membership
      ? [
          {
            decider: userDecider,
            streamId: userStream(userId),
            command: { type: 'GrantSiteRole', data: { userId, ...membership, now } } satisfies UserCommand,
          },
        ]
      : []),
  ] as unknown as StreamCommand[];
}

async function sealedHash(
  deps: Pick<AppDeps, 'db'>,
  userId: string,
  input: { password?: string; passwordHash?: string },
): Promise<string | null> {
  const hash = input.passwordHash ?? (input.password ? await hashPassword(input.password) : null);
  return hash ? seal(deps.db, userId, hash) : null;
}

/** Sets a new password: `change` (the old one was proven) or `reset` (a link naming the password version). */
export async function setPassword(
  deps: Pick<AppDeps, 'db' | 'store' | 'clock'>,
  userId: string,
  password: string,
  how: { reason: 'change' } | { reason: 'reset'; passwordVersion: number },
  metadata: EventMetadata,
): Promise<void> {
  await handleCommand(
    deps.store,
    userDecider,
    userStream(userId),
    {
      type: 'ChangePassword',
      data: {
        userId,
        passwordHash: await seal(deps.db, userId, await hashPassword(password)),
        ...how,
        now: deps.clock.now().toISOString(),
      },
    },
    { metadata },
  );
}

/**
 * Spends an emailed password link (reset or invitation): the single-purpose token must be valid and name the
 * user's current password version, the new password must meet the policy; then the password is set (which also
 * verifies the address and bumps the token version). A used, expired or foreign link is 400 on `token`.
 */
export async function consumePasswordLink(
  deps: Pick<AppDeps, 'db' | 'store' | 'clock' | 'tokens'>,
  purpose: 'reset-password' | 'invite',
  token: string,
  password: string,
  metadataFor: (userId: string) => EventMetadata,
): Promise<UserRow> {
  const claims = await deps.tokens.verifyPurpose(purpose, token);
  const user = claims ? await findUserById(deps.db, claims.sub) : null;
  if (!claims || !user || typeof claims.pv !== 'number' || claims.pv !== user.passwordVersion)
    throw new UsedOrInvalidLink();
  checkPassword(password, user.email ?? undefined);
  try {
    await setPassword(
      deps,
      user.userId,
      password,
      { reason: 'reset', passwordVersion: claims.pv },
      metadataFor(user.userId),
    );
  } catch (err) {
    // The version moved between the check and the write: the link was just used.
    throw err instanceof DomainError && err.code === 'VALIDATION_FAILED' ? new UsedOrInvalidLink() : err;
  }
  return user;
}
