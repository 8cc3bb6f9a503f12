import type { AppDeps } from '../../deps.ts';
import { streamCommand, type StreamCommand } from '../../kernel/es/handle-command.ts';
import { seal } from '../../platform/privacy/pii.ts';
import { emailClaimDecider } from './email-claim.decider.ts';
import { hashPassword } from './passwords.ts';
import { userDecider, type UserCommand } from './user.decider.ts';
import { assertNoLegacyClaim } from './address-hash.ts';
import { emailClaimStream, userStream } from '../../contracts/auth/user.events.ts';

/**
 * The commands that make a new identity in one atomic append: the address's claim (so two sign-ups cannot share
 * it), the user with its personal data sealed under its own key, and its role on a site (none for an invited
 * identity: its membership begins when it accepts).
 */
export async function newIdentityCommands(
  deps: Pick<AppDeps, 'db' | 'clock' | 'store' | 'addresses' | 'config'>,
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
  const sealed = (v: string | null | undefined) =>
    v ? seal(deps.db, deps.config.keyring, userId, v) : Promise.resolve(null);
  const register: UserCommand = {
    type: 'RegisterUser',
    data: {
      userId,
      email: await seal(deps.db, deps.config.keyring, userId, input.email),
      passwordHash: await sealedHash(deps, userId, input),
      firstName: await sealed(input.firstName),
      lastName: await sealed(input.lastName),
      instanceAdmin: false,
      status: input.status,
      now,
    },
  };
  return [
    streamCommand({
      decider: emailClaimDecider,
      streamId: emailClaimStream(deps.addresses.hash(input.email)),
      command: { type: 'ClaimEmail', data: { userId, now } },
    }),
    streamCommand({ decider: userDecider, streamId: userStream(userId), command: register }),
    ...(membership
      ? [
          streamCommand({
            decider: userDecider,
            streamId: userStream(userId),
            command: { type: 'GrantSiteRole', data: { userId, ...membership, now } },
          }),
        ]
      : []),
  ];
}

async function sealedHash(
  deps: Pick<AppDeps, 'db' | 'config'>,
  userId: string,
  input: { password?: string; passwordHash?: string },
): Promise<string | null> {
  const hash = input.passwordHash ?? (input.password ? await hashPassword(input.password) : null);
  return hash ? seal(deps.db, deps.config.keyring, userId, hash) : null;
}
