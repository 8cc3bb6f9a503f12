import type { FastifyPluginAsync } from 'fastify';
import { sql } from 'kysely';
import type { AppDeps } from '../../../deps.ts';
import { envelopeKeyId, openValue, sealValue } from '../../../kernel/crypto/envelope.ts';
import { siteOf } from '../../../kernel/http/access.ts';
import { DomainError } from '../../../kernel/http/errors.ts';
import { withSite } from '../../../kernel/tenancy/site.ts';
import { loadSiteSchema } from '../../../../projections/item-documents/site-schema.ts';
import { placeOf } from '../../items/encrypted-fields.ts';
import { itemContext, type ItemTarget } from '../../items/http/item-context.ts';

/** Items re-wrapped per call; the client polls until `done`. */
const BATCH = 200;

/**
 * POST /api/v1/admin/encryption/envelope/migrate: re-wraps the site's encrypted item values whose envelope names a
 * configured key other than the active one, a batch per call, each item's new envelopes appended as an
 * `ItemRewrapped` event. Envelopes of keys no longer configured cannot be opened and are counted as `unavailable`.
 */
export const envelopeMigrateRoutes: FastifyPluginAsync<AppDeps> = async (app, deps) => {
  const { db, config } = deps;
  const ring = config.keyring;
  const { sendMany } = itemContext(deps);

  app.post(
    '/api/v1/admin/encryption/envelope/migrate',
    { config: { caller: 'site-admin' }, schema: { tags: ['admin'] } },
    async (req) => {
      const active = ring.activeKeyId;
      if (!active)
        throw new DomainError('ENCRYPTION_NOT_CONFIGURED', 'no encryption key is configured (ENCRYPTION_KEY)');
      const site = siteOf(req);
      const others = [...ring.keys.keys()].filter((k) => k !== active);
      const schema = await withSite(db, site, (trx) => loadSiteSchema(trx, site));
      const encrypted = [...schema.fields].flatMap(([collection, fields]) =>
        [...fields.values()].filter((f) => f.encrypted).map((f) => ({ collection, field: f.field })),
      );
      const byCollection = new Map<string, string[]>();
      for (const e of encrypted) byCollection.set(e.collection, [...(byCollection.get(e.collection) ?? []), e.field]);

      const stale = (fields: string[], keys: string[]) =>
        sql.join(
          fields.map((f) => sql`split_part(data ->> ${sql.lit(f)}, ':', 1) = any(${keys}::text[])`),
          sql` or `,
        );
      const count = async (keys: string[]) => {
        let n = 0;
        for (const [collection, fields] of byCollection) {
          if (!keys.length) break;
          const r = await withSite(db, site, (trx) =>
            sql<{ n: number }>`select count(*)::int as n from item_documents
            where site_id = ${site} and collection = ${collection} and (${stale(fields, keys)})`.execute(trx),
          );
          n += r.rows[0]!.n;
        }
        return n;
      };

      const targets: ItemTarget[] = [];
      let unreadable = 0;
      for (const [collection, fields] of byCollection) {
        if (!others.length || targets.length + unreadable >= BATCH) break;
        const rows = await withSite(db, site, (trx) =>
          sql<{ id: string; data: Record<string, unknown> }>`select id, data from item_documents
          where site_id = ${site} and collection = ${collection} and (${stale(fields, others)})
          order by id limit ${BATCH - targets.length - unreadable}`.execute(trx),
        );
        for (const row of rows.rows) {
          const changes: Record<string, unknown> = {};
          for (const f of fields) {
            const v = row.data[f];
            const keyId = envelopeKeyId(v);
            if (!keyId || keyId === active) continue;
            const place = placeOf(site, collection, row.id, f);
            const plain = openValue(ring, v as string, place);
            if (plain !== null) changes[f] = sealValue(ring, plain, place);
          }
          if (!Object.keys(changes).length) {
            unreadable++; // tampered with, or moved from another place: it stays as it is and reads as '***'
            continue;
          }
          targets.push({ collection, id: row.id, make: (ctx) => ({ type: 'RewrapItem', data: { ...ctx, changes } }) });
        }
      }
      if (targets.length) await sendMany(req, targets, (c) => [...(schema.fields.get(c)?.values() ?? [])]);
      const remaining = (await count(others)) - unreadable;
      const configured = [...ring.keys.keys()];
      const unavailable = await countUnconfigured();
      return {
        data: {
          activeKeyId: active,
          rewrapped: targets.length,
          unreadable,
          remaining,
          unavailable,
          done: remaining === 0,
        },
      };

      /** Envelopes under a key id that is not configured any more (they read as '***'). */
      async function countUnconfigured() {
        let n = 0;
        for (const [collection, fields] of byCollection) {
          const r = await withSite(db, site, (trx) =>
            sql<{ n: number }>`select count(*)::int as n from item_documents
            where site_id = ${site} and collection = ${collection} and (${sql.join(
              fields.map(
                (f) =>
                  sql`(data ->> ${sql.lit(f)} ~ '^[a-z0-9]+:' and not split_part(data ->> ${sql.lit(f)}, ':', 1) = any(${configured}::text[]))`,
              ),
              sql` or `,
            )})`.execute(trx),
          );
          n += r.rows[0]!.n;
        }
        return n;
      }
    },
  );
};
