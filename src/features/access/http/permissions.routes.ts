import { dict, own } from '../../../kernel/safe/keys.ts';
import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppDeps } from '../../../deps.ts';
import { roleOn } from '../../../kernel/auth/actor.ts';
import { RESOURCES } from '../../../kernel/auth/authorizer.ts';
import { handleCommands, type StreamCommand } from '../../../kernel/es/handle-command.ts';
import { actorOf, siteOf } from '../../../kernel/http/access.ts';
import { commandMeta } from '../../../kernel/http/command-meta.ts';
import { DomainError } from '../../../kernel/http/errors.ts';
import { withSite } from '../../../kernel/tenancy/site.ts';
import { findUserById } from '../../../../projections/users/index.ts';
import { itemInside } from '../../../../projections/item-documents/index.ts';
import { accessDecider, type AccessCommand, type AccessState } from '../access.decider.ts';
import { accessStream } from '../access.events.ts';
import { ACTIONS, type PermissionDef } from '../access.types.ts';
import { effectivePermissions, ruleVars, scopeOf, type PermissionSet } from '../effective.ts';
import { permissionsOf } from '../request-permissions.ts';
import { siteAccess } from '../site-access.ts';
import {
  CheckBody,
  CheckResult,
  CollectionName,
  FieldList,
  PermissionMatrix,
  SubscriberGrant,
} from './access.schemas.ts';
import { dataEnvelope, NoContent } from '../../../kernel/http/envelope.ts';
import { checkRule } from './access.routes.ts';

const GrantBody = z
  .object({
    collection: CollectionName,
    /** Only rows whose status is `published` (the default), or every row. */
    publishedOnly: z.boolean().default(true),
    fields: FieldList,
  })
  .strict();
const CollectionParams = z.object({ collection: CollectionName });
/** The policy subscriber-access keeps per collection, attached to the subscriber role. */
const grantPolicy = (collection: string) => `subscriber-access-${collection}`;

/** The permissions matrix of a set: for each collection (and media, pages) and action, the fields and conditions. */
function matrix(set: PermissionSet, collections: string[]) {
  const out = dict<Record<string, unknown>>();
  for (const c of [...collections, RESOURCES.media, RESOURCES.pages]) {
    const system = c === RESOURCES.media || c === RESOURCES.pages;
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
  const { db, store, clock } = deps;
  const tags = ['access'];

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
          collections: matrix(set, [...schema.collections.keys()]),
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
      let set = await permissionsOf(deps, req);
      if (userId && userId !== actorOf(req).id) {
        // Checking someone else is a site admin's debugging tool.
        if (!deps.authorizer.isSiteAdmin(req))
          throw new DomainError('PERMISSION_DENIED', 'only site admins may check another user');
        const user = await findUserById(db, userId);
        const roleId = user?.instanceAdmin ? 'admin' : ((user ? own(user.roles, siteId) : undefined) ?? null);
        if (!user || !roleId) throw new DomainError('NOT_FOUND', `user ${userId} is not a member of this site`);
        const vars = ruleVars(userId, roleId, clock.now());
        set = effectivePermissions((await siteAccess(deps, siteId)).state, { roleId, userId }, vars);
      }
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
      if (!schema.collections.has(collection)) throw new DomainError('NOT_FOUND', `collection ${collection} not found`);
      const allowed = await withSite(db, siteId, (trx) =>
        itemInside(trx, siteId, schema, collection, itemId, scope.filter, { live: true }),
      );
      if (allowed === null) throw new DomainError('RECORD_NOT_FOUND', `item ${itemId} not found`);
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

  // Subscriber access: a managed policy per collection, attached to the subscriber role.
  const site = { caller: 'site-admin' as const };
  const grants = (s: AccessState) =>
    [...s.policies.values()]
      .filter((p) => p.id.startsWith('subscriber-access-'))
      .map((p) => {
        const rule = p.permissions[0];
        return {
          collection: rule?.collection ?? p.id.slice('subscriber-access-'.length),
          publishedOnly: rule?.conditions !== null,
          fields: rule?.fields ?? ['*'],
        };
      });
  app.get(
    '/api/v1/users/subscriber-access',
    {
      config: site,
      schema: {
        summary: 'List subscriber read grants',
        response: { 200: dataEnvelope(z.array(SubscriberGrant)) },
        tags,
      },
    },
    async (req) => ({
      data: grants((await siteAccess(deps, siteOf(req))).state),
    }),
  );
  app.get(
    '/api/v1/users/subscriber-access/:collection',
    {
      config: site,
      schema: {
        summary: 'Read the subscriber grant of a collection',
        response: { 200: dataEnvelope(SubscriberGrant) },
        tags,
        params: CollectionParams,
      },
    },
    async (req) => {
      const grant = grants((await siteAccess(deps, siteOf(req))).state).find(
        (g) => g.collection === req.params.collection,
      );
      if (!grant) throw new DomainError('NOT_FOUND', `subscribers have no access to ${req.params.collection}`);
      return { data: grant };
    },
  );
  app.post(
    '/api/v1/users/subscriber-access',
    {
      config: site,
      schema: {
        summary: 'Grant subscribers read on a collection',
        response: { 201: dataEnvelope(SubscriberGrant, 'Created') },
        tags,
        body: GrantBody,
      },
    },
    async (req, reply) => {
      const siteId = siteOf(req);
      const { collection, publishedOnly, fields } = req.body;
      const rule: PermissionDef = {
        id: `${grantPolicy(collection)}-read`,
        collection,
        action: 'read',
        fields,
        conditions: publishedOnly ? { status: { _eq: 'published' } } : null,
        presets: null,
        validation: null,
      };
      checkRule(await deps.schemas.read(siteId), rule, clock.now());
      const now = clock.now();
      const at = now.toISOString();
      const policyId = grantPolicy(collection);
      // Replace the grant whole, in one append: the policy, its one rule, and its attachment to subscriber.
      await handleCommands(
        store,
        [
          (s: AccessState): AccessCommand | null =>
            s.policies.has(policyId) ? { type: 'DeletePolicy', data: { id: policyId, now: at } } : null,
          (): AccessCommand => ({
            type: 'CreatePolicy',
            data: { id: policyId, name: `Subscribers read ${collection}`, description: null, now: at },
          }),
          (): AccessCommand => ({ type: 'AddPermission', data: { policyId, permission: rule, now: at } }),
          (): AccessCommand => ({
            type: 'AttachPolicy',
            data: { policyId, target: { kind: 'role', id: 'subscriber' }, now: at },
          }),
        ].map(
          (command) =>
            ({ decider: accessDecider, streamId: accessStream(siteId), command }) as unknown as StreamCommand,
        ),
        { metadata: commandMeta(req, siteId, now) },
      );
      reply.status(201);
      return { data: { collection, publishedOnly, fields } };
    },
  );
  app.delete(
    '/api/v1/users/subscriber-access/:collection',
    {
      config: site,
      schema: {
        summary: 'Revoke the subscriber grant of a collection',
        response: { 204: NoContent },
        tags,
        params: CollectionParams,
      },
    },
    async (req, reply) => {
      const siteId = siteOf(req);
      const policyId = grantPolicy(req.params.collection);
      if (!(await siteAccess(deps, siteId)).state.policies.has(policyId))
        throw new DomainError('NOT_FOUND', `subscribers have no access to ${req.params.collection}`);
      await handleCommands(
        store,
        [
          {
            decider: accessDecider,
            streamId: accessStream(siteId),
            command: (s: AccessState) =>
              s.policies.has(policyId)
                ? { type: 'DeletePolicy', data: { id: policyId, now: clock.now().toISOString() } }
                : null,
          } as unknown as StreamCommand,
        ],
        { metadata: commandMeta(req, siteId, clock.now()) },
      );
      return reply.status(204).send();
    },
  );
};
