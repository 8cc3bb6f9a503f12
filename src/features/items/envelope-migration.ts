import type { FastifyRequest } from 'fastify';
import type { AppDeps } from '../../deps.ts';
import { envelopeKeyId, openValue, sealValue } from '../../platform/crypto/envelope.ts';
import { siteOf } from '../../kernel/http/access.ts';
import { commandContext } from '../../kernel/http/command-meta.ts';
import { readAsSite } from '../../kernel/tenancy/site.ts';
import {
  countSealedOutside,
  countSealedUnder,
  itemsSealedUnder,
  type EncryptedFields,
} from '../../../projections/item-documents/index.ts';
import { placeOf } from './encrypted-fields.ts';
import { sendItemCommands, type ItemTarget } from './item.commands.ts';
import { EncryptionNotConfigured } from './item.errors.ts';

/** Items re-wrapped per call; the client polls until `done`. */
const BATCH = 200;

/**
 * Re-wraps a batch of the site's encrypted item values whose envelope names a configured key other than the active
 * one, each item's new envelopes appended as an `ItemRewrapped` event. Envelopes of keys no longer configured
 * cannot be opened and are counted as `unavailable`.
 */
export function envelopeMigration(deps: AppDeps) {
  const { db } = deps;
  const ring = deps.config.keyring;

  return async (req: FastifyRequest) => {
    const active = ring.activeKeyId;
    if (!active) throw new EncryptionNotConfigured();
    const site = siteOf(req);
    const others = [...ring.keys.keys()].filter((k) => k !== active);
    const schema = await deps.schemas.read(site);
    const fields: EncryptedFields = new Map();
    for (const [collection, defs] of schema.fields) {
      const names = [...defs.values()].filter((f) => f.encrypted).map((f) => f.field);
      if (names.length) fields.set(collection, names);
    }
    const targets: ItemTarget[] = [];
    let unreadable = 0;
    for (const [collection, names] of fields) {
      if (!others.length || targets.length + unreadable >= BATCH) break;
      const limit = BATCH - targets.length - unreadable;
      const rows = await readAsSite(db, site, (trx) => itemsSealedUnder(trx, site, collection, names, others, limit));
      for (const row of rows) {
        const changes = rewrapped(site, collection, row, names, active);
        // Tampered with, or moved from another place: it stays as it is and reads as '***'.
        if (!changes) unreadable++;
        else
          targets.push({
            collection,
            id: row.id,
            make: (data) => ({ type: 'RewrapItem', data: { ...data, changes } }),
          });
      }
    }
    if (targets.length) await sendItemCommands(deps, commandContext(req, deps.clock), schema, targets);
    const configured = [...ring.keys.keys()];
    const [stale, unavailable] = await readAsSite(db, site, (trx) =>
      Promise.all([countSealedUnder(trx, site, fields, others), countSealedOutside(trx, site, fields, configured)]),
    );
    const remaining = stale - unreadable;
    return {
      activeKeyId: active,
      rewrapped: targets.length,
      unreadable,
      remaining,
      unavailable,
      done: remaining === 0,
    };
  };

  /** The item's values sealed anew under the active key; null when none of them opens. */
  function rewrapped(
    site: string,
    collection: string,
    row: { id: string; data: Record<string, unknown> },
    names: string[],
    active: string,
  ): Record<string, unknown> | null {
    const changes = new Map<string, unknown>();
    for (const f of names) {
      const v = row.data[f];
      const keyId = envelopeKeyId(v);
      if (!keyId || keyId === active) continue;
      const place = placeOf(site, collection, row.id, f);
      const plain = openValue(ring, v as string, place);
      if (plain !== null) changes.set(f, sealValue(ring, plain, place));
    }
    return changes.size ? Object.fromEntries(changes) : null;
  }
}
