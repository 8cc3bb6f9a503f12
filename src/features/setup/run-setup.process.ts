import type { AppDeps } from '../../deps.ts';
import type { EventMetadata } from '../../kernel/es/event.ts';
import { WrongExpectedVersion } from '../../kernel/es/event-store.ts';
import { aggregateStream } from '../../kernel/es/aggregate-stream.ts';
import { handleCommand } from '../../kernel/es/handle-command.ts';
import { DomainError } from '../../kernel/http/errors.ts';
import { newId } from '../../kernel/ids.ts';
import { seal } from '../../platform/privacy/pii.ts';
import { SITE_ID_PATTERN } from '../../kernel/tenancy/site.ts';
import { emailClaimStream } from '../../contracts/auth/user.events.ts';
import { accounts } from '../auth/index.ts';
import { createSite } from '../sites/index.ts';
import { isValidAdminPath } from '../studio/index.ts';
import { setupDecider, type SetupState } from './setup.decider.ts';
import { InvalidAdminPath, InvalidSetupSiteId } from './setup.errors.ts';
import { SETUP_STREAM, type SetupEvent, type SetupStarted } from '../../contracts/setup/setup.events.ts';

export interface SetupInput {
  siteId: string;
  siteName: string;
  email: string;
  password: string;
  adminPath?: string;
}

/**
 * First-run setup as a process: claim it (one event, so two concurrent setups cannot both win), then
 * create the admin user and the first site step by step. Every step is idempotent and the claim holds all
 * the data, so a crash in the middle is finished by `resumeSetup` on the next start.
 */
export async function runSetup(
  deps: AppDeps,
  input: SetupInput,
  metadata: EventMetadata,
): Promise<{ userId: string; siteId: string }> {
  if (!SITE_ID_PATTERN.test(input.siteId)) throw new InvalidSetupSiteId();
  const adminPath = input.adminPath ?? `/studio-${newId().slice(0, 10).toLowerCase()}`;
  if (!isValidAdminPath(adminPath)) throw new InvalidAdminPath();
  accounts.checkPassword(input.password, input.email);
  const userId = newId();
  const email = input.email.trim();
  const started: Omit<SetupStarted['data'], 'at'> = {
    siteId: input.siteId,
    siteName: input.siteName,
    adminUserId: userId,
    email: await seal(deps.db, deps.config.keyring, userId, email),
    emailHash: deps.addresses.hash(email),
    passwordHash: await seal(deps.db, deps.config.keyring, userId, await accounts.hashPassword(input.password)),
    adminPath,
  };
  const now = deps.clock.now().toISOString();
  await handleCommand(
    deps.store,
    setupDecider,
    SETUP_STREAM,
    { type: 'StartSetup', data: { ...started, now } },
    { metadata },
  );
  await finishSetup(deps, { ...started, at: now }, metadata);
  return { userId, siteId: input.siteId };
}

/** Finishes a setup that was claimed but not completed (a crash mid-way). */
export async function resumeSetup(deps: AppDeps, metadata: EventMetadata): Promise<boolean> {
  const { state } = await aggregateStream<SetupState, SetupEvent>(deps.store, SETUP_STREAM, setupDecider.evolve, () =>
    setupDecider.initialState(),
  );
  if (state.phase !== 'started') return false;
  await finishSetup(deps, state.started, metadata);
  return true;
}

async function finishSetup(deps: AppDeps, s: SetupStarted['data'], metadata: EventMetadata): Promise<void> {
  const now = deps.clock.now().toISOString();
  const meta = { metadata };
  await ignoreConflict(
    deps.store.append(
      emailClaimStream(s.emailHash),
      [{ type: 'EmailClaimed', data: { userId: s.adminUserId, at: now }, metadata }],
      {
        expectedVersion: 'no_stream',
      },
    ),
  );
  const register = {
    userId: s.adminUserId,
    email: s.email,
    passwordHash: s.passwordHash,
    firstName: null,
    lastName: null,
    instanceAdmin: true,
    now,
  };
  await ignoreConflict(accounts.registerUser(deps, meta, register));
  const site = { siteId: s.siteId, name: s.siteName, createdBy: s.adminUserId, now };
  await ignoreConflict(createSite(deps, { metadata: { ...metadata, siteId: s.siteId } }, site));
  const grant = { userId: s.adminUserId, siteId: s.siteId, role: 'admin', now };
  await accounts.grantSiteRole(deps, meta, grant);
  await handleCommand(deps.store, setupDecider, SETUP_STREAM, { type: 'CompleteSetup', data: { now } }, meta);
}

async function ignoreConflict(p: Promise<unknown>): Promise<void> {
  try {
    await p;
  } catch (err) {
    if (err instanceof WrongExpectedVersion) return;
    if (err instanceof DomainError && err.code === 'CONFLICT') return;
    throw err;
  }
}
