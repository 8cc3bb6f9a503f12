import { z } from 'zod';
import { isInheritedName } from '../../../kernel/safe/keys.ts';
import { RecordId } from '../../../kernel/safe/record-id.ts';
import { inheritedKeyPath } from '../access.fold-guard.ts';
import { ACTIONS } from '../../../contracts/access/access.types.ts';

const Name = z.string().trim().min(1).max(100);
const Description = z.string().max(1000).nullable().optional();
/** Filters and presets of rules: no key at any depth names an inherited member (such rules are never folded). */
const Filter = z.record(z.string(), z.unknown()).superRefine((f, ctx) => {
  const path = inheritedKeyPath(f);
  if (path) ctx.addIssue({ code: 'custom', message: 'keys may not name object prototype members', path });
});

const Id = RecordId;
/** A collection named by a rule or a check: never an inherited name. */
export const CollectionName = z
  .string()
  .min(1)
  .max(64)
  .refine((c) => !isInheritedName(c), 'collection names may not name object prototype members');
/** Fields a rule lets the caller see or write: never an inherited name. */
export const FieldList = z
  .array(
    z
      .string()
      .min(1)
      .max(64)
      .refine((f) => !isInheritedName(f), 'field names may not name object prototype members'),
  )
  .min(1)
  .max(500)
  .default(['*']);
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
    collection: CollectionName,
    action: z.enum(ACTIONS),
    fields: FieldList,
    conditions: Filter.nullable().default(null),
    presets: Filter.nullable().default(null),
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
    collection: CollectionName,
    action: z.enum(ACTIONS),
    itemId: z.string().min(1).max(128).optional(),
    userId: Id.optional(),
  })
  .strict();

/** A role: a system role (admin, site_admin, …) or a custom one, with the policies attached to it. */
export const RoleRecord = z
  .object({
    id: z.string(),
    name: z.string(),
    description: z.string().nullable(),
    parentId: z.string().nullable(),
    system: z.boolean(),
    policies: z.array(z.string()),
  })
  .meta({ id: 'Role' });

/** One rule of a policy (the spec's permission rule). */
export const PermissionRecord = z
  .object({
    id: z.string(),
    collection: z.string(),
    action: z.string(),
    fields: z.array(z.string()),
    conditions: z.record(z.string(), z.unknown()).nullable(),
    presets: z.record(z.string(), z.unknown()).nullable(),
    validation: z.record(z.string(), z.unknown()).nullable(),
  })
  .meta({ id: 'PermissionRule' });

const Target = z.object({ kind: z.enum(['role', 'user', 'team']), id: z.string() });

/** A policy with its rules and what it is attached to. */
export const PolicyRecord = z
  .object({
    id: z.string(),
    name: z.string(),
    description: z.string().nullable(),
    requireMfa: z.boolean().optional(),
    permissions: z.array(PermissionRecord),
    attachedTo: z.array(Target),
  })
  .meta({ id: 'Policy' });

/** A team with its members and policies. */
export const TeamRecord = z
  .object({ id: z.string(), name: z.string(), members: z.array(z.string()), policies: z.array(z.string()) })
  .meta({ id: 'Team' });

export const Total = z.object({ total: z.number().int() });

/** The read grant subscribers have on a collection. */
export const SubscriberGrant = z.object({
  collection: z.string(),
  publishedOnly: z.boolean(),
  fields: z.array(z.string()),
});

/** The outcome of a permission check, with the rule's fields and conditions. */
export const CheckResult = z.object({
  collection: z.string(),
  action: z.string(),
  fields: z.array(z.string()),
  conditions: z.unknown(),
  itemId: z.string().optional(),
  allowed: z.boolean(),
  reason: z.string(),
});

/** The caller's effective permissions on the site. */
export const PermissionMatrix = z.object({
  role: z.string().nullable(),
  roleChain: z.array(z.string()),
  admin: z.boolean(),
  policies: z.array(z.string()),
  collections: z.record(z.string(), z.unknown()),
});
