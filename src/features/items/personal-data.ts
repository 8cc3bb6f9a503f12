import type { AppDeps } from '../../deps.ts';
import { envelopeKeyId } from '../../platform/crypto/envelope.ts';
import type { PersonalDataPart } from '../../platform/privacy/personal-data.ts';
import { readAsSite } from '../../kernel/tenancy/site.ts';
import { itemsCreatedBy, type ItemCursor } from '../../../projections/item-documents/index.ts';
import { revisionsByActor } from '../../../projections/item-revisions/index.ts';
import { openPersonal, personalSubject, subjectKeys } from '../../platform/privacy/pii.ts';
import { MASK, placeOf } from './encrypted-fields.ts';
import type { ItemValues } from '../../contracts/items/item.events.ts';

const PAGE = 500;

/**
 * Encrypted values stay masked: an export is no way around the field access rules that guard them (the subject may
 * read them through the item API where those rules allow). Personal values are opened where they were sealed for
 * the subject; those of other subjects (a customer record the person typed in) are masked too.
 */
function masked<T extends ItemValues>(values: T, own?: (field: string, sealed: string) => unknown): T {
  for (const [k, v] of Object.entries(values)) {
    if (envelopeKeyId(v)) (values as ItemValues)[k] = MASK;
    else if (typeof v === 'string' && personalSubject(v)) (values as ItemValues)[k] = own?.(k, v) ?? MASK;
  }
  return values;
}

/** Opens the personal values sealed for the subject, at their place; undefined for anyone else's. */
async function ownOpener(deps: Pick<AppDeps, 'db' | 'config'>, userId: string) {
  const key = (await subjectKeys(deps.db, deps.config.keyring, [userId], false)).get(userId);
  return (site: string, collection: string, id: string) => (field: string, sealed: string) =>
    personalSubject(sealed) === userId ? openPersonal(key, sealed, placeOf(site, collection, id, field)) : undefined;
}

/** The items a person created and the revisions they made, on each of the subject's sites, under its tenancy. */
export function itemsPersonalData(deps: Pick<AppDeps, 'db' | 'config'>): PersonalDataPart[] {
  return [
    {
      name: 'items',
      async write(subject, out) {
        const own = await ownOpener(deps, subject.userId);
        for (const site of subject.siteIds) {
          let after: ItemCursor | null = null;
          for (;;) {
            const page = await readAsSite(deps.db, site, (db) => itemsCreatedBy(db, site, subject.userId, after, PAGE));
            for (const { collection, record } of page)
              await out.item({ site, collection, record: masked(record, own(site, collection, record.id)) });
            if (page.length < PAGE) break;
            const last = page.at(-1)!;
            after = { collection: last.collection, id: last.record.id };
          }
        }
      },
    },
    {
      name: 'revisions',
      async write(subject, out) {
        const own = await ownOpener(deps, subject.userId);
        for (const site of subject.siteIds) {
          let after: { collection: string; itemId: string; version: number } | null = null;
          for (;;) {
            const page = await readAsSite(deps.db, site, (db) =>
              revisionsByActor(db, site, subject.userId, after, PAGE),
            );
            for (const r of page) {
              const open = own(site, r.collection, r.itemId);
              await out.item({ site, ...r, data: masked(r.data, open), delta: masked(r.delta, open) });
            }
            if (page.length < PAGE) break;
            const last = page.at(-1)!;
            after = { collection: last.collection, itemId: last.itemId, version: last.version };
          }
        }
      },
    },
  ];
}
