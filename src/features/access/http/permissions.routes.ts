import { dict } from '../../../kernel/safe/keys.ts';
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { AppDeps } from '../../../deps.ts';
import { roleOn } from '../../../kernel/auth/actor.ts';
import { RESOURCES } from '../../../kernel/auth/authorizer.ts';
import { actorOf, siteOf } from '../../../kernel/http/access.ts';
import { readAsSite } from '../../../kernel/tenancy/site.ts';
import { findUserById } from '../../../../projections/users/index.ts';
import { itemInside } from '../../../../projections/item-documents/index.ts';
import {
  CheckedCollectionNotFound,
  CheckedItemNotFound,
  CheckedUserNotMember,
  CheckOthersForbidden,
} from '../access.errors.ts';
import { ACTIONS } from '../../../contracts/access/access.types.ts';
import { effectivePermissions, ruleVars, scopeOf, type PermissionSet } from '../effective.ts';
import { permissionsOf } from '../request-permissions.ts';
import { siteAccess } from '../site-access.ts';
import { CheckBody, CheckResult, PermissionMatrix } from './access.schemas.ts';
import { dataEnvelope } from '../../../kernel/http/envelope.ts';
import { isSystemCollection } from '../../../contracts/schema/system-collections.types.ts';

/** The permissions matrix of a set: for each collection (and media, pages, the memory) and action, the fields and conditions. */
function matrix(set: PermissionSet, collections: string[]) {
  const out = dict<Record<string, unknown>>();
  for (const c of [...collections, RESOURCES.media, RESOURCES.pages, RESOURCES.tm]) {
    const system = c === RESOURCES.media || c === RESOURCES.pages || c === RESOURCES.tm;
    out[c] = Object.fromEntries(
      ACTIONS.filter((a) => !system || a !== 'share').map((a) => {
        const s = scopeOf(set, c, a);
        return [a, s ? { fields: s.fields ? [...s.fields] : ['*'], conditions: s.filter } : false];
      }),
    );
  }
  return out;
}

export const permissionsRoutes: FastifyPluginAsync<AppDeps> = async (plain, deps) => {
  const app = plain.withTypeProvider<ZodTypeProvider>();
  const { db, clock } = deps;
  const tags = ['access'];

  /** The permissions checked: the caller's, or a member's when a site admin debugs them. */
  const checkedSet = async (req: FastifyRequest, userId: string | undefined): Promise<PermissionSet> => {
    // The caller's own set first: a policy step-up the caller owes applies to checking others too.
    const callers = await permissionsOf(deps, req);
    if (!userId || userId === actorOf(req).id) return callers;
    if (!deps.authorizer.isSiteAdmin(req)) throw new CheckOthersForbidden();
    const siteId = siteOf(req);
    const user = await findUserById(db, userId);
    const roleId = user ? roleOn({ type: 'user', instanceAdmin: user.instanceAdmin, roles: user.roles }, siteId) : null;
    if (!user || !roleId) throw new CheckedUserNotMember({ userId });
    const vars = ruleVars(userId, roleId, clock.now());
    return effectivePermissions((await siteAccess(deps, siteId)).state, { roleId, userId }, vars);
  };

  app.get(
    '/api/v1/permissions/me',
    {
      schema: {
        summary: 'Read the caller effective permissions',
        response: { 200: dataEnvelope(PermissionMatrix) },
        tags,
      },
    },
    async (req) => {
      const set = await permissionsOf(deps, req);
      const schema = await deps.schemas.read(siteOf(req));
      return {
        data: {
          role: roleOn(actorOf(req), siteOf(req)),
          roleChain: set.roleChain,
          admin: set.full,
          policies: set.policyIds,
          collections: matrix(
            set,
            [...schema.collections.keys()].filter((c) => !isSystemCollection(c)),
          ),
        },
      };
    },
  );

  app.post(
    '/api/v1/permissions/check',
    {
      schema: {
        summary: 'Check what a rule allows (the caller, or a member for site admins)',
        response: { 200: dataEnvelope(CheckResult) },
        tags,
        body: CheckBody,
      },
    },
    async (req) => {
      const siteId = siteOf(req);
      const { collection, action, itemId, userId } = req.body;
      const set = await checkedSet(req, userId);
      const scope = scopeOf(set, collection, action);
      const base = {
        collection,
        action,
        fields: scope ? (scope.fields ? [...scope.fields] : ['*']) : [],
        conditions: scope?.filter ?? null,
      };
      if (!scope) return { data: { ...base, allowed: false, reason: `no rule allows ${action} on ${collection}` } };
      if (!itemId)
        return {
          data: {
            ...base,
            allowed: true,
            reason: scope.filter ? 'allowed on rows matching the conditions' : 'allowed on every row',
          },
        };
      const schema = await deps.schemas.read(siteId);
      if (!schema.collections.has(collection)) throw new CheckedCollectionNotFound({ collection });
      const allowed = await readAsSite(db, siteId, (trx) =>
        itemInside(trx, siteId, schema, collection, itemId, scope.filter, { live: true }),
      );
      if (allowed === null) throw new CheckedItemNotFound({ itemId });
      return {
        data: {
          ...base,
          itemId,
          allowed,
          reason: allowed ? 'the item matches the conditions' : 'the item is outside the conditions',
        },
      };
    },
  );
};
