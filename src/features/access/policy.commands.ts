import type { AppDeps } from '../../deps.ts';
import { newId } from '../../kernel/ids.ts';
import { changeAccess, requireMember, type AccessCtx } from './access.commands.ts';
import { PolicyNotFound } from './access.errors.ts';
import { checkRule } from './access.rules.ts';
import type { AttachTarget, PermissionDef } from '../../contracts/access/access.types.ts';
import { siteAccess } from './site-access.ts';

/** Creates a policy without rules; its new id with the model. */
export async function createPolicy(
  deps: Pick<AppDeps, 'store'>,
  ctx: AccessCtx,
  input: { name: string; description?: string | null; requireMfa?: boolean },
) {
  const id = newId();
  const policy = {
    id,
    name: input.name,
    description: input.description ?? null,
    requireMfa: input.requireMfa ?? false,
  };
  return { id, state: await changeAccess(deps, ctx, 'CreatePolicy', policy) };
}

/** Adds a rule to a policy once it checks out against the site's schema. */
export async function addPermission(
  deps: Pick<AppDeps, 'store' | 'schemas'>,
  ctx: AccessCtx,
  input: { policyId: string; rule: Omit<PermissionDef, 'id'> },
): Promise<PermissionDef> {
  const { policyId } = input;
  const permission: PermissionDef = { id: newId(), ...input.rule };
  if (!(await siteAccess(deps, ctx.siteId)).state.policies.has(policyId)) throw new PolicyNotFound({ policyId });
  checkRule(await deps.schemas.read(ctx.siteId), permission, ctx.now);
  await changeAccess(deps, ctx, 'AddPermission', { policyId, permission });
  return permission;
}

/** Attaches a policy to a role, a member of the site or a team, or detaches it. */
export async function attachPolicy(
  deps: Pick<AppDeps, 'store' | 'db'>,
  ctx: AccessCtx,
  input: { policyId: string; target: AttachTarget; detach: boolean },
) {
  const { policyId, target } = input;
  if (target.kind === 'user' && !input.detach) await requireMember(deps, ctx.siteId, target.id, ['user']);
  return changeAccess(deps, ctx, input.detach ? 'DetachPolicy' : 'AttachPolicy', { policyId, target });
}
