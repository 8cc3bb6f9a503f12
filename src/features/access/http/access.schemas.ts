import { z } from 'zod';
import { isInheritedName } from '../../../kernel/safe/keys.ts';
import { ACTIONS } from '../access.types.ts';

const Name = z.string().trim().min(1).max(100);
const Description = z.string().max(1000).nullable().optional();
const Filter = z.record(z.string(), z.unknown());

/** Ids of roles, policies, teams and rules: never a name every object inherits (they were looked up in plain maps). */
const Id = z
  .string()
  .regex(/^[A-Za-z0-9_-]{1,64}$/, 'ids are 1–64 characters: letters, digits, _ and -')
  .refine((id) => !isInheritedName(id), 'ids may not name object prototype members');
export const IdParams = z.object({ id: Id });
export const PermissionParams = z.object({ id: Id, permissionId: Id });

export const RoleBody = z.object({ name: Name, description: Description, parentId: Id.nullable().optional() }).strict();
export const RolePatch = RoleBody.partial().strict();

export const PolicyBody = z
  .object({ name: Name, description: Description, requireMfa: z.boolean().optional() })
  .strict();
export const PolicyPatch = PolicyBody.partial().strict();

export const PermissionBody = z
  .object({
    collection: z
      .string()
      .min(1)
      .max(64)
      .refine((c) => !isInheritedName(c), 'collection names may not name object prototype members'),
    action: z.enum(ACTIONS),
    fields: z.array(z.string().min(1).max(64)).min(1).max(500).default(['*']),
    conditions: Filter.nullable().default(null),
    presets: z.record(z.string(), z.unknown()).nullable().default(null),
    validation: Filter.nullable().default(null),
  })
  .strict();

/** Exactly one target: a role, a user or a team. */
export const AttachBody = z
  .object({
    role: Id.optional(),
    user: Id.optional(),
    team: Id.optional(),
  })
  .strict()
  .refine(
    (b) => [b.role, b.user, b.team].filter((x) => x !== undefined).length === 1,
    'name exactly one of role, user, team',
  );

export const TeamBody = z.object({ name: Name, members: z.array(Id).max(1000).default([]) }).strict();
export const TeamPatch = z
  .object({
    name: Name.optional(),
    addMembers: z.array(Id).max(1000).default([]),
    removeMembers: z.array(Id).max(1000).default([]),
  })
  .strict();

/**
 * POST /permissions/check: would `userId` (default: the caller) be allowed `action` on `collection`, and, with
 * `itemId`, on that item? The answer names the rules that apply and the fields in scope.
 */
export const CheckBody = z
  .object({
    collection: z
      .string()
      .min(1)
      .max(64)
      .refine((c) => !isInheritedName(c), 'collection names may not name object prototype members'),
    action: z.enum(ACTIONS),
    itemId: z.string().min(1).max(128).optional(),
    userId: z.string().min(1).max(64).optional(),
  })
  .strict();
