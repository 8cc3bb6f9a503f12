import type { AppDeps } from '../../deps.ts';
import type { Principal } from '../../kernel/http/access.ts';
import { actorOf, siteOf } from '../../kernel/http/access.ts';
import { DomainError } from '../../kernel/http/errors.ts';
import { unprocessable } from '../../kernel/http/unprocessable.ts';
import { readAsSite } from '../../kernel/tenancy/site.ts';
import { findItemsAnyState } from '../../../projections/item-documents/index.ts';
import { pinnedValues, releaseChanges, releaseItemChecks } from './release-authority.ts';
import { AuthorRequired, ReleaseItemDenied, ReleaseItemNotFound, ReleasesNotAllowed } from './release.errors.ts';
import { itemKey, type ReleaseAuthor, type ReleaseItem } from '../../contracts/releases/release.events.ts';
import { isSystemCollection } from '../../contracts/schema/system-collections.types.ts';

type Deps = Pick<AppDeps, 'db' | 'store' | 'authorizer' | 'schemas' | 'items'>;

/** Releases are for those who may update items somewhere on the site. */
export async function mayRelease(deps: Pick<AppDeps, 'authorizer'>, p: Principal): Promise<void> {
  if (!(await deps.authorizer.rights(p)).any('update')) throw new ReleasesNotAllowed();
}

/** The creator of a release, whose rights its publish acts with: a user or an API key. */
export function authorOf(p: Principal): ReleaseAuthor {
  const actor = actorOf(p);
  if (actor.type !== 'user' && actor.type !== 'apiKey') throw new AuthorRequired();
  return { type: actor.type, id: actor.id, amr: actor.amr ?? [] };
}

/**
 * Items added to a release (at creation or by PATCH) name existing collections (422) and items of the caller's
 * site (404 ITEM_NOT_FOUND), and the caller could update each of them as PATCH would: an update rule, the row inside
 * its conditions, the fields the release changes (at least the status) writable. Otherwise 403 PERMISSION_DENIED
 * naming the item in `path` and `extensions`. Validation and the editorial gate wait for the publish: they depend
 * on the item's values then.
 */
export function addedItemsCheck(deps: Deps) {
  const check = releaseItemChecks(deps);
  return async (p: Principal, items: ReleaseItem[]) => {
    if (!items.length) return;
    const siteId = siteOf(p);
    const schema = await deps.schemas.read(siteId);
    items.forEach((i, n) => {
      if (!schema.collections.has(i.collection) || isSystemCollection(i.collection))
        throw unprocessable([
          {
            message: `collection ${i.collection} does not exist`,
            path: ['addItems', String(n), 'collection'],
            extensions: {},
          },
        ]);
    });
    const found = await readAsSite(deps.db, siteId, (trx) =>
      findItemsAnyState(
        trx,
        siteId,
        items.map((i) => ({ collection: i.collection, id: i.itemId })),
      ),
    );
    const missing = items.find((i) => !found.has(itemKey(i)));
    if (missing) throw new ReleaseItemNotFound({ ...missing, path: ['addItems'] });
    for (const [n, item] of items.entries()) {
      const doc = found.get(itemKey(item))!;
      const changes = releaseChanges(schema, item, doc.data, await pinnedValues(deps, siteId, item, { strict: false }));
      const path = ['addItems', String(n)];
      const target = { collection: item.collection, id: item.itemId, current: doc.data, changes };
      try {
        await check(p, schema, target, { validation: false, path });
      } catch (err) {
        if (!(err instanceof DomainError) || err.code !== 'PERMISSION_DENIED') throw err;
        throw new ReleaseItemDenied({
          ...item,
          reason: err.message,
          path: err.options.path ?? path,
          extensions: err.options.extensions ?? {},
        });
      }
    }
  };
}
