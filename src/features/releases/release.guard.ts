import type { FastifyRequest } from 'fastify';
import type { AppDeps } from '../../../deps.ts';
import { siteOf } from '../../../kernel/http/access.ts';
import { DomainError } from '../../../kernel/http/errors.ts';
import { unprocessable } from '../../../kernel/http/unprocessable.ts';
import { withSite } from '../../../kernel/tenancy/site.ts';
import { findItemsAnyState } from '../../../../projections/item-documents/index.ts';
import { pinnedValues, releaseChanges, releaseItemChecks } from '../release-authority.ts';
import { itemKey, type ReleaseItem } from '../release.events.ts';

/**
 * Items added to a release (at creation or by PATCH) name existing collections (422) and items of the request's
 * site (404 ITEM_NOT_FOUND), and the caller could update each of them as PATCH would: an update rule, the row inside
 * its conditions, the fields the release changes (at least the status) writable. Otherwise 403 PERMISSION_DENIED
 * naming the item in `path` and `extensions`. Validation and the editorial gate wait for the publish: they depend
 * on the item's values then.
 */
export function addedItemsCheck(deps: Pick<AppDeps, 'db' | 'store' | 'authorizer' | 'schemas'>) {
  const check = releaseItemChecks(deps);
  return async (req: FastifyRequest, items: ReleaseItem[]) => {
    if (!items.length) return;
    const siteId = siteOf(req);
    const schema = await deps.schemas.read(siteId);
    items.forEach((i, n) => {
      if (!schema.collections.has(i.collection))
        throw unprocessable([
          {
            message: `collection ${i.collection} does not exist`,
            path: ['addItems', String(n), 'collection'],
            extensions: {},
          },
        ]);
    });
    const found = await withSite(deps.db, siteId, (trx) =>
      findItemsAnyState(
        trx,
        siteId,
        items.map((i) => ({ collection: i.collection, id: i.itemId })),
      ),
    );
    const missing = items.find((i) => !found.has(itemKey(i)));
    if (missing)
      throw new DomainError('ITEM_NOT_FOUND', `item ${missing.itemId} of ${missing.collection} not found`, {
        path: ['addItems'],
      });
    for (const [n, item] of items.entries()) {
      const doc = found.get(itemKey(item))!;
      const changes = releaseChanges(schema, item, doc.data, await pinnedValues(deps, siteId, item, { strict: false }));
      const path = ['addItems', String(n)];
      try {
        await check(
          req,
          schema,
          { collection: item.collection, id: item.itemId, current: doc.data, changes },
          {
            validation: false,
            path,
          },
        );
      } catch (err) {
        if (!(err instanceof DomainError) || err.code !== 'PERMISSION_DENIED') throw err;
        throw new DomainError('PERMISSION_DENIED', `${err.message} (item ${item.itemId} of ${item.collection})`, {
          path: err.options.path ?? path,
          extensions: { ...err.options.extensions, collection: item.collection, itemId: item.itemId },
        });
      }
    }
  };
}
