import { createHash, timingSafeEqual } from 'node:crypto';
import type { AppDeps } from '../../deps.ts';
import type { CommandContext } from '../../kernel/http/command-meta.ts';
import { instanceState } from '../../../projections/instance/index.ts';
import { runSetup, type SetupInput } from './run-setup.process.ts';
import { SetupDone, SetupTokenNotIssued, SetupTokenRequired } from './setup.errors.ts';

const sameSecret = (a: string, b: string) =>
  timingSafeEqual(createHash('sha256').update(a).digest(), createHash('sha256').update(b).digest());

/** Before setup only: after it, setup's endpoints answer like unknown routes. */
export async function requireSetupPending(deps: Pick<AppDeps, 'db'>): Promise<void> {
  if ((await instanceState(deps.db)).setupComplete) throw new SetupDone();
}

/**
 * Completes first-run setup from a request: the setup token when SVC_REQUIRE_SETUP_TOKEN is on, then the setup
 * process (the admin user and the first site); the new user's and site's ids.
 */
export async function completeSetup(
  deps: AppDeps,
  ctx: Pick<CommandContext, 'metadata'>,
  input: SetupInput & { setupToken?: string },
): Promise<{ userId: string; siteId: string }> {
  await requireSetupPending(deps);
  if (deps.config.SVC_REQUIRE_SETUP_TOKEN) {
    if (!deps.setupToken) throw new SetupTokenNotIssued();
    if (!input.setupToken || !sameSecret(input.setupToken, deps.setupToken)) throw new SetupTokenRequired();
  }
  return runSetup(deps, input, ctx.metadata);
}
