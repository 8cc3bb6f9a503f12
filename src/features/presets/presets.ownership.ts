import { InvalidPreset } from './presets.errors.ts';
import type { PresetDefinition, PresetScope } from '../../contracts/presets/presets.events.ts';

type Owner = Pick<PresetDefinition, 'userId' | 'roleId'>;
/** What a body says about ownership: an explicit scope, a user, a role (each may be absent). */
export interface OwnershipInput {
  scope?: PresetScope | undefined;
  userId?: string | null | undefined;
  roleId?: string | null | undefined;
}

const bad = (message: string, field: string) => new InvalidPreset({ message, path: [field], reason: 'scope' });

/**
 * The owner a body asks for, by the spec's rule: `userId` set means user scope, `roleId` set means role scope,
 * neither means global scope. A create names its owner (no owner: global, never the caller by default, so a
 * member's attempt at a global preset is refused as one); an update keeps the preset's owner unless it names one.
 * `scope` is an extra that must agree with the owner (an update may keep the preset's user or role for it).
 */
export function resolveOwner(input: OwnershipInput, current: Owner | null): Owner {
  const userId = input.userId ?? null;
  const roleId = input.roleId ?? null;
  if (userId !== null && roleId !== null) throw bad('a preset has a user or a role, not both', 'roleId');
  const named = input.scope !== undefined || input.userId !== undefined || input.roleId !== undefined;
  if (!named && current) return { userId: current.userId, roleId: current.roleId };
  const scope = input.scope ?? (roleId !== null ? 'role' : userId !== null ? 'user' : 'global');
  switch (scope) {
    case 'user': {
      if (roleId !== null) throw bad('a user preset has no role', 'roleId');
      const owner = userId ?? (input.userId === undefined ? (current?.userId ?? null) : null);
      if (owner === null)
        throw bad('a user preset names its user (userId): the caller’s own id for one’s own', 'userId');
      return { userId: owner, roleId: null };
    }
    case 'role': {
      if (userId !== null) throw bad('a role preset has no user', 'userId');
      const owner = roleId ?? (input.roleId === undefined ? (current?.roleId ?? null) : null);
      if (owner === null) throw bad('a role preset names its role (roleId)', 'roleId');
      return { userId: null, roleId: owner };
    }
    case 'global':
      if (userId !== null || roleId !== null)
        throw bad('a global preset has no owner', userId !== null ? 'userId' : 'roleId');
      return { userId: null, roleId: null };
  }
}
