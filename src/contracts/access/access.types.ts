import type { Action } from '../../kernel/auth/authorizer.ts';

/** The actions a permission rule grants (spec "Permission rule"). */
export const ACTIONS = ['create', 'read', 'update', 'delete', 'share'] as const satisfies readonly Action[];
export type { Action };

/** Keys of the system roles every site has (DESIGN §5). Their ids are their keys. */
export { SYSTEM_ROLES, type SystemRole } from '../../kernel/auth/authorizer.ts';

export interface RoleDef {
  id: string;
  name: string;
  description: string | null;
  /** The role this one inherits permissions (and view presets) from. */
  parentId: string | null;
}

/**
 * One rule of a policy. `collection` is a collection name, `*` (every collection) or `media` (files: actions
 * create/read/update/delete = the spec's media:* permissions). `fields` lists the visible (read) or writable
 * (create/update) fields, `['*']` for all. `conditions` is a filter expression over the item (variables
 * $CURRENT_USER, $CURRENT_ROLE, $NOW), null for every row. `presets` are values a create or update starts from;
 * `validation` is a filter the written item must satisfy.
 */
export interface PermissionDef {
  id: string;
  collection: string;
  action: Action;
  fields: string[];
  conditions: Record<string, unknown> | null;
  presets: Record<string, unknown> | null;
  validation: Record<string, unknown> | null;
}

export interface PolicyDef {
  id: string;
  name: string;
  description: string | null;
  /** Step-up: callers under this policy must have proven a second factor in their session (amr totp). */
  requireMfa?: boolean;
}

export type AttachTarget = { kind: 'role' | 'user' | 'team'; id: string };

export interface TeamDef {
  id: string;
  name: string;
}
