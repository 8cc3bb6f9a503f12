import type { AppDeps } from '../../deps.ts';
import { handleCommand } from '../../kernel/es/handle-command.ts';
import type { CommandContext } from '../../kernel/http/command-meta.ts';
import { newId } from '../../kernel/ids.ts';
import { roleBase } from '../access/index.ts';
import { apiKeyDecider, ROLE_RANK, type CreateApiKey, type RevokeApiKey } from './api-key.decider.ts';
import { apiKeyStream } from '../../contracts/api-keys/api-key.events.ts';
import { generateApiKey } from './api-key.secrets.ts';

type Ctx = Pick<CommandContext, 'siteId' | 'actor' | 'now' | 'metadata'>;

/** A new key as its creator asks for it; `creatorRole` is the creator's role on the site. */
export interface NewApiKey {
  name: string;
  role: string;
  publishable: boolean;
  allowedOrigins?: string[];
  expiresAt?: string;
  creatorRole: string;
}

/** Creates a key of the site; its id and the plaintext key, which is stored nowhere. */
export async function createApiKey(deps: Pick<AppDeps, 'store'>, ctx: Ctx, input: NewApiKey) {
  const { siteId } = ctx;
  const keyId = newId();
  const { key, prefix, secretHash } = generateApiKey(keyId, input.publishable);
  const cmd: CreateApiKey = {
    type: 'CreateApiKey',
    data: {
      keyId,
      siteId,
      name: input.name,
      role: input.role,
      publishable: input.publishable,
      allowedOrigins: input.allowedOrigins ?? null,
      expiresAt: input.expiresAt ? new Date(input.expiresAt).toISOString() : null,
      prefix,
      secretHash,
      createdBy: ctx.actor.id,
      creatorRole: input.creatorRole,
      now: ctx.now.toISOString(),
    },
  };
  // A custom role of the site ranks as the system role it stands on; an unknown one stays unknown (400).
  if (!(ROLE_RANK as readonly string[]).includes(input.role))
    cmd.data.roleBase = await roleBase(deps, siteId, input.role);
  await handleCommand(deps.store, apiKeyDecider, apiKeyStream(siteId, keyId), cmd, { metadata: ctx.metadata });
  return { keyId, key };
}

/** Revokes a key of the site; revoking a revoked key changes nothing. */
export async function revokeApiKey(deps: Pick<AppDeps, 'store'>, ctx: Ctx, input: { keyId: string }) {
  const { siteId } = ctx;
  const cmd: RevokeApiKey = {
    type: 'RevokeApiKey',
    data: { keyId: input.keyId, siteId, by: ctx.actor.id, now: ctx.now.toISOString() },
  };
  await handleCommand(deps.store, apiKeyDecider, apiKeyStream(siteId, input.keyId), cmd, { metadata: ctx.metadata });
}
