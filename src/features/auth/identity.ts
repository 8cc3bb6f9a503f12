import type { AppDeps } from '../../deps.ts';
import type { EventMetadata } from '../../kernel/es/event.ts';
import { handleCommand, type StreamCommand } from '../../kernel/es/handle-command.ts';
import { seal } from '../../kernel/privacy/pii.ts';
import { emailClaimDecider } from './email-claim.decider.ts';
import { hashPassword } from './passwords.ts';
import { userDecider, type UserCommand } from './user.decider.ts';
import { emailClaimStream, emailHash, userStream } from './user.events.ts';

/**
 * The commands that make a new identity in one atomic append: the address's claim (so two sign-ups cannot share
 * it), the user with its personal data sealed under its own key, and its role on a site.
 */
export async function newIdentityCommands(
  deps: Pick<AppDeps, 'db' | 'clock'>,
  input: {
    userId: string;
    email: string;
    password?: string;
    firstName?: string | null;
    lastName?: string | null;
    status: 'active' | 'unverified' | 'invited';
  },
  membership: { siteId: string; role: string },
): Promise<StreamCommand[]> {
  const { userId } = input;
  const now = deps.clock.now().toISOString();
  const sealed = (v: string | null | undefined) => (v ? seal(deps.db, userId, v) : Promise.resolve(null));
  const register: UserCommand = {
    type: 'RegisterUser',
    data: {
      userId,
      email: await seal(deps.db, userId, input.email),
      passwordHash: input.password ? await seal(deps.db, userId, await hashPassword(input.password)) : null,
      firstName: await sealed(input.firstName),
      lastName: await sealed(input.lastName),
      instanceAdmin: false,
      status: input.status,
      now,
    },
  };
  const grant: UserCommand = { type: 'GrantSiteRole', data: { userId, ...membership, now } };
  return [
    {
      decider: emailClaimDecider,
      streamId: emailClaimStream(emailHash(input.email)),
      command: { type: 'ClaimEmail', data: { userId, now } },
    },
    { decider: userDecider, streamId: userStream(userId), command: register },
    { decider: userDecider, streamId: userStream(userId), command: grant },
  ] as unknown as StreamCommand[];
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
