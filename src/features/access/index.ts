export { roleIsKnown, siteAccess } from './site-access.ts';
export { SYSTEM_ROLES, type Action, type PermissionDef } from './access.types.ts';
export { checkWritable, permissionsOf, readGuard, requireScope } from './request-permissions.ts';
export { scopeOf, type PermissionSet, type Scope } from './effective.ts';
