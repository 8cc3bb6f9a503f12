import { InvalidPreset } from './presets.errors.ts';
import type { PresetDefinition, PresetScope } from './presets.events.ts';

type Owner = Pick<PresetDefinition, 'userId' | 'roleId'>;
/** What a body says about ownership: an explicit scope, a user, a role (each may be absent). */
export interface OwnershipInput {
  scope?: PresetScope | undefined;
  userId?: string | null | undefined;
  roleId?: string | null | undefined;
}

const bad = (message: string, field: string) => new InvalidPreset({ message, path: [field], reason: 'scope' });

/**
 * The owner a body asks for. Without `scope`, a named role means role scope and a named user user scope; with
 * neither, a create is the caller's own (user scope) and an update keeps the preset's owner. User scope defaults
 * the user to the caller; role scope needs a role (an update may keep the preset's); global names no owner.
 */
export function resolveOwner(input: OwnershipInput, current: Owner | null, self: string | null): Owner {
  const userId = input.userId ?? null;
  const roleId = input.roleId ?? null;
  if (userId !== null && roleId !== null) throw bad('a preset has a user or a role, not both', 'roleId');
  const named = input.scope !== undefined || input.userId !== undefined || input.roleId !== undefined;
  if (!named && current) return { userId: current.userId, roleId: current.roleId };
  const scope = input.scope ?? (roleId !== null ? 'role' : userId !== null ? 'user' : current ? 'global' : 'user');
  switch (scope) {
    case 'user': {
      if (roleId !== null) throw bad('a user preset has no role', 'roleId');
      const owner = userId ?? current?.userId ?? self;
      if (owner === null) throw bad('name the user: only a user has presets of their own', 'userId');
      return { userId: owner, roleId: null };
    }
    case 'role': {
      if (userId !== null) throw bad('a role preset has no user', 'userId');
      const owner = roleId ?? current?.roleId ?? null;
      if (owner === null) throw bad('a role preset names its role', 'roleId');
      return { userId: null, roleId: owner };
    }
    case 'global':
      if (userId !== null || roleId !== null)
        throw bad('a global preset has no owner', userId !== null ? 'userId' : 'roleId');
      return { userId: null, roleId: null };
  }
}
