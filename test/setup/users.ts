import { handleCommand } from '../../src/kernel/es/handle-command.ts';
import { newId } from '../../src/kernel/ids.ts';
import { seal } from '../../src/platform/privacy/pii.ts';
import { hashPassword } from '../../src/features/auth/passwords.ts';
import { userDecider } from '../../src/features/auth/user.decider.ts';
import { userStream } from '../../src/contracts/auth/user.events.ts';
import type { TestApp } from './app.ts';

/** A user with roles on sites, written through the User aggregate (the user API arrives with access control). */
export async function createUser(
  t: TestApp,
  email: string,
  password: string,
  roles: Record<string, string>,
  opts: { instanceAdmin?: boolean } = {},
): Promise<string> {
  const userId = newId();
  const now = new Date().toISOString();
  const metadata = {
    siteId: '_system',
    actor: { type: 'system' as const, id: 'test' },
    correlationId: 'test',
    causationId: null,
    requestId: null,
    occurredAt: now,
  };
  const { db, store } = t.deps;
  const ring = t.deps.config.keyring;
  const data = {
    userId,
    email: await seal(db, ring, userId, email),
    passwordHash: await seal(db, ring, userId, await hashPassword(password)),
    firstName: null,
    lastName: null,
    instanceAdmin: opts.instanceAdmin ?? false,
    now,
  };
  await handleCommand(store, userDecider, userStream(userId), { type: 'RegisterUser', data }, { metadata });
  for (const [siteId, role] of Object.entries(roles)) {
    await handleCommand(
      store,
      userDecider,
      userStream(userId),
      { type: 'GrantSiteRole', data: { userId, siteId, role, now } },
      { metadata },
    );
  }
  const res = await t.call({ method: 'POST', url: '/api/v1/auth/login', payload: { email, password } });
  return res.json().data.token as string;
}
