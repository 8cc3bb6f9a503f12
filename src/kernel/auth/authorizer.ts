import { roleOn, SITE_ADMIN_ROLES, SYSTEM_ROLES, type Actor, type Principal, type SystemRole } from './actor.ts';
import { FieldNotWritable } from '../http/kernel.errors.ts';

/** What a permission rule grants on a resource (spec "Permission rule"). */
export type Action = 'create' | 'read' | 'update' | 'delete' | 'share';

export { SITE_ADMIN_ROLES, SYSTEM_ROLES, type SystemRole };

/**
 * Resources that rules name beside the site's collections: files (`media`, as the spec says), pages and the
 * translation memory (with its glossary). `*` covers collections, pages and the memory, not media. `_pages` and
 * `_tm` cannot be collections' names (they start with a letter).
 */
export const RESOURCES = { media: 'media', pages: '_pages', tm: '_tm' } as const;

/** Collections governed by a resource's rules instead of their own: file records are media (`media:read` …). */
const COLLECTION_RESOURCE: ReadonlyMap<string, string> = new Map([['files', RESOURCES.media]]);

/** The resource whose rules govern a collection's items (the collection itself, but for system collections). */
export const resourceOf = (collection: string): string => COLLECTION_RESOURCE.get(collection) ?? collection;

/** What one rule set allows for an action on a resource: rows (a filter), fields, presets and validation. */
export interface AccessScope {
  /** Rows the action reaches, as a filter of the list-query language; null: every row. */
  filter: Record<string, unknown> | null;
  /** null: every field. */
  fields: ReadonlySet<string> | null;
  presets: Record<string, unknown>;
  validation: Record<string, unknown>[];
}

/** A principal's rights on its site, worked out once (per request) and then asked synchronously. */
export interface Rights {
  /** Site admins and instance admins: every action on every row and field. */
  readonly full: boolean;
  /**
   * The principal acts as the site's `public` role (its role is `public` or descends from it): whatever rules grant
   * it, it uploads nothing (the upload guard's first rule).
   */
  readonly public: boolean;
  /** The scope of an action on a resource; null when no rule grants it. */
  scope(resource: string, action: Action): AccessScope | null;
  /** Whether some rule grants the action on some resource (who may manage releases: whoever updates anything). */
  any(action: Action): boolean;
}

/**
 * The one place that answers "may this principal do this": every slice and every process manager asks it, for a
 * request's caller or for the person behind a process (a release's author), never a role list of its own.
 */
export interface Authorizer {
  rights(p: Principal): Promise<Rights>;
  /** The scope of the action, or 403 PERMISSION_DENIED naming the resource and action. */
  require(p: Principal, resource: string, action: Action): Promise<AccessScope>;
  may(p: Principal, resource: string, action: Action): Promise<boolean>;
  /** Whether the principal administers its site. */
  isSiteAdmin(p: Principal): boolean;
  /** 403 unless the principal administers its site. */
  requireSiteAdmin(p: Principal): void;
  /**
   * 403 unless the principal holds its site's `admin` role (instance admins hold it everywhere): what the areas of
   * `caller: 'admin'` ask, such as a configuration import, wherever else it is done (a repository's manifest).
   */
  requireAdministrator(p: Principal): void;
  /** Whether the principal holds its site's `admin` role (what `requireAdministrator` asks), for checks over several sites. */
  isAdministrator(p: Principal): boolean;
  /** Whether the principal administers the instance (every site): what acting on another instance administrator needs. */
  isInstanceAdministrator(p: Principal): boolean;
}

/** Whether an actor administers a site (instance admins administer every site). */
export const administers = (actor: Actor, siteId: string): boolean => SITE_ADMIN_ROLES.has(roleOn(actor, siteId) ?? '');

/** 403 naming the first field the scope does not let the caller write. */
export function checkWritable(scope: AccessScope, values: Record<string, unknown>, path: string[] = []): void {
  if (!scope.fields) return;
  for (const key of Object.keys(values)) {
    if (key === 'id' || scope.fields.has(key)) continue;
    throw new FieldNotWritable({ field: key, path });
  }
}
