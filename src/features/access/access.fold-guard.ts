import { isInheritedName } from '../../kernel/safe/keys.ts';
import type { AccessEvent } from '../../contracts/access/access.events.ts';
import type { PermissionDef } from '../../contracts/access/access.types.ts';

/** True for an id that is not a string or that names a member every object inherits. */
const badId = (id: unknown): boolean => typeof id !== 'string' || isInheritedName(id);

/** The path of the first key, at any depth, that names an inherited member; null when none does (no recursion). */
export function inheritedKeyPath(value: unknown): string[] | null {
  const stack: { v: unknown; path: string[] }[] = [{ v: value, path: [] }];
  while (stack.length) {
    const { v, path } = stack.pop()!;
    if (Array.isArray(v)) v.forEach((x, i) => stack.push({ v: x, path: [...path, String(i)] }));
    else if (v !== null && typeof v === 'object') {
      for (const key of Object.keys(v)) {
        if (isInheritedName(key)) return [...path, key];
        stack.push({ v: (v as Record<string, unknown>)[key], path: [...path, key] });
      }
    }
  }
  return null;
}
const hasInheritedKey = (value: unknown) => inheritedKeyPath(value) !== null;

function badRule(p: PermissionDef): boolean {
  if (badId(p.id) || badId(p.collection) || !Array.isArray(p.fields) || p.fields.some(badId)) return true;
  return hasInheritedKey(p.conditions) || hasInheritedKey(p.presets) || hasInheritedKey(p.validation);
}

/**
 * Whether an event of an access stream may be folded. Earlier versions accepted ids such as `constructor` or
 * `__proto__` and wrote them to the log; the routes refuse them now, so no record with such an id can be read,
 * changed or removed through the API. Folding skips every event that names one (ids, attachment targets, team
 * members, rule collections, fields and filter keys) instead of failing: creation and removal are skipped alike,
 * so what remains is the model without those records.
 */
export function foldable(e: AccessEvent): boolean {
  try {
    return namesOnlySafeKeys(e);
  } catch {
    // An event whose data lacks the fields its type promises names nothing that can be folded.
    return false;
  }
}

function namesOnlySafeKeys(e: AccessEvent): boolean {
  switch (e.type) {
    case 'RoleCreated':
      return !badId(e.data.role.id) && !(e.data.role.parentId != null && badId(e.data.role.parentId));
    case 'RoleUpdated':
      return (
        !badId(e.data.id) &&
        !hasInheritedKey(e.data.changes) &&
        !(e.data.changes.parentId != null && badId(e.data.changes.parentId))
      );
    case 'PolicyCreated':
      return !badId(e.data.policy.id);
    case 'PolicyUpdated':
      return !badId(e.data.id) && !hasInheritedKey(e.data.changes);
    case 'TeamCreated':
      return !badId(e.data.team.id);
    case 'RoleDeleted':
    case 'PolicyDeleted':
    case 'TeamDeleted':
    case 'TeamUpdated':
      return !badId(e.data.id);
    case 'PermissionAdded':
      return !badId(e.data.policyId) && !badRule(e.data.permission);
    case 'PermissionRemoved':
      return !badId(e.data.policyId) && !badId(e.data.permissionId);
    case 'PolicyAttached':
    case 'PolicyDetached':
      return !badId(e.data.policyId) && !badId(e.data.target.id);
    case 'TeamMemberAdded':
    case 'TeamMemberRemoved':
      return !badId(e.data.teamId) && !badId(e.data.userId);
    default:
      // A type this version does not know (written by a newer one): not ours to fold.
      return false;
  }
}
