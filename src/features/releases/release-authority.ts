import { isDeepStrictEqual } from 'node:util';
import type { AppDeps } from '../../deps.ts';
import { roleOn, type Actor } from '../../kernel/auth/actor.ts';
import { siteOf, type Principal } from '../../kernel/http/access.ts';
import { DomainError } from '../../kernel/http/errors.ts';
import { PinnedRevisionNotFound, RevisionStaged } from './release.errors.ts';
import { dictFrom, own } from '../../kernel/safe/keys.ts';
import { readAsSite } from '../../kernel/tenancy/site.ts';
import { findApiKeyCredential } from '../../../projections/api-keys/index.ts';
import type { SiteSchema } from '../../../projections/schema/index.ts';
import { findRevision } from '../../../projections/item-revisions/index.ts';
import { findUserById } from '../../../projections/users/index.ts';
import type { CollectionSchema } from '../items/index.ts';
import type { ReleaseAuthor, ReleaseItem } from '../../contracts/releases/release.events.ts';

/**
 * Whose rights a check uses: a request's caller, or a release's author as the site knows them at publish time;
 * the item routes' own checks take either.
 */
export type Caller = Principal;

/** The item's field that a release sets to its target status. */
export const statusFieldOf = (schema: SiteSchema, collection: string) =>
  schema.collections.get(collection)?.workflow?.field ?? 'status';

/**
 * What publishing the item changes: the target status, and the pinned revision's values that differ from the
 * item's current ones. The write checks judge exactly these fields, as PATCH judges the fields it is sent.
 */
export function releaseChanges(
  schema: SiteSchema,
  item: ReleaseItem,
  current: Record<string, unknown>,
  pinned: Record<string, unknown> | null,
): Record<string, unknown> {
  const changed = Object.entries(pinned ?? {}).filter(([k, v]) => k !== 'id' && !isDeepStrictEqual(own(current, k), v));
  return dictFrom([...changed, [statusFieldOf(schema, item.collection), item.targetStatus]]);
}

/**
 * The values of the item's pinned revision (null without one). `strict` (publishing): a missing revision is 404, a
 * staged one 409; otherwise (adding items) they count as no values, and the publish refuses them later.
 */
export async function pinnedValues(
  deps: Pick<AppDeps, 'db'>,
  siteId: string,
  item: ReleaseItem,
  opts: { strict: boolean },
): Promise<Record<string, unknown> | null> {
  if (!item.revisionId) return null;
  const rev = await readAsSite(deps.db, siteId, (trx) =>
    findRevision(trx, siteId, item.collection, item.itemId, item.revisionId!),
  );
  if (!opts.strict && (!rev || !rev.committed)) return null;
  if (!rev) throw new PinnedRevisionNotFound({ revisionId: item.revisionId, itemId: item.itemId });
  if (!rev.committed) throw new RevisionStaged({ revisionId: item.revisionId! });
  const { id: _id, ...data } = rev.data;
  return data;
}

/**
 * The author's standing on the site now, as the actor their requests would carry: none (null) for a user who left
 * the site, is no longer active or never had a record here (an external subject without provisioning), and for an
 * API key revoked, expired, publishable or of another site. The factors are those of the session that created the
 * release: a policy's second-factor requirement holds against the session that authored it.
 */
export async function authorNow(
  deps: Pick<AppDeps, 'db' | 'clock'>,
  siteId: string,
  author: ReleaseAuthor,
): Promise<Actor | null> {
  const base = { id: author.id, email: '', tokenVersion: 0, amr: author.amr };
  if (author.type === 'user') {
    const user = await findUserById(deps.db, author.id);
    if (!user || user.status !== 'active') return null;
    // A preview's members are its base site's, with their role there (`roleOn`).
    const role = roleOn({ type: 'user', instanceAdmin: user.instanceAdmin, roles: user.roles }, siteId);
    if (!role) return null;
    return { ...base, type: 'user', instanceAdmin: user.instanceAdmin, roles: dictFrom([[siteId, role]]) };
  }
  const key = await findApiKeyCredential(deps.db, author.id);
  const now = deps.clock.now().getTime();
  if (!key || key.siteId !== siteId || key.revokedAt || key.publishable) return null;
  if (key.expiresAt && key.expiresAt.getTime() <= now) return null;
  return { ...base, type: 'apiKey', instanceAdmin: false, roles: dictFrom([[siteId, key.role]]) };
}

/** The principal of an actor on a site, for the item checks. */
export const callerFor = (actor: Actor, siteId: string): Caller => ({ actor, site: { id: siteId } });

/**
 * The checks of `PATCH /api/v1/items/:collection/:id` for one release item, through the item routes' own code:
 * the update rule, the changed fields writable, the current row inside the rule's conditions, and (with
 * `validation`) the resulting item inside the rule's validation. Throws the DomainError PATCH would answer.
 */
export function releaseItemChecks(deps: Pick<AppDeps, 'items'>) {
  const perms = deps.items.check;
  return async (
    caller: Caller,
    schema: SiteSchema,
    target: { collection: string; id: string; current: Record<string, unknown>; changes: Record<string, unknown> },
    opts: { validation: boolean; path?: string[] },
  ): Promise<void> => {
    const s: CollectionSchema = {
      collection: schema.collections.get(target.collection)!,
      fields: [...(schema.fields.get(target.collection)?.values() ?? [])],
      schema,
      relations: schema.relations,
    };
    const scope = await perms.authorizeWrite(caller, s, 'update', target.id, target.changes, opts.path);
    if (opts.validation && scope.validation.length)
      await perms.checkValidation(caller, s, target.id, { ...target.current, ...target.changes }, scope);
    // The pinned values' relations must still name items this caller may read, as a PATCH by them would.
    if (opts.validation) {
      const write = { collection: target.collection, values: target.changes, path: opts.path ?? [] };
      await perms.references(siteOf(caller), caller, schema, [write]);
    }
  };
}

/** The reason a refused check gives as a publish outcome: the rule's validation, or else a missing right. */
export const refusal = (err: DomainError): string =>
  err.code === 'VALIDATION_FAILED' ? 'VALIDATION_FAILED' : 'PERMISSION_DENIED';
