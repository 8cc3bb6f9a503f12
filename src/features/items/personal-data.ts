import type { AppDeps } from '../../deps.ts';
import { envelopeKeyId } from '../../kernel/crypto/envelope.ts';
import type { PersonalDataPart } from '../../kernel/privacy/personal-data.ts';
import { readAsSite } from '../../kernel/tenancy/site.ts';
import { itemsCreatedBy, type ItemCursor } from '../../../projections/item-documents/index.ts';
import { revisionsByActor } from '../../../projections/item-revisions/index.ts';
import { MASK } from './encrypted-fields.ts';
import type { ItemValues } from './item.events.ts';

const PAGE = 500;

/**
 * Encrypted values stay masked: an export is no way around the field access rules that guard them (the subject may
 * read them through the item API where those rules allow).
 */
function masked<T extends ItemValues>(values: T): T {
  for (const [k, v] of Object.entries(values)) if (envelopeKeyId(v)) (values as ItemValues)[k] = MASK;
  return values;
}

/** The items a person created and the revisions they made, on each of the subject's sites, under its tenancy. */
export function itemsPersonalData(deps: Pick<AppDeps, 'db'>): PersonalDataPart[] {
  return [
    {
      name: 'items',
      async write(subject, out) {
        for (const site of subject.siteIds) {
          let after: ItemCursor | null = null;
          for (;;) {
            const page = await readAsSite(deps.db, site, (db) => itemsCreatedBy(db, site, subject.userId, after, PAGE));
            for (const { collection, record } of page) await out.item({ site, collection, record: masked(record) });
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
        for (const site of subject.siteIds) {
          let after: { collection: string; itemId: string; version: number } | null = null;
          for (;;) {
            const page = await readAsSite(deps.db, site, (db) =>
              revisionsByActor(db, site, subject.userId, after, PAGE),
            );
            for (const r of page) await out.item({ site, ...r, data: masked(r.data), delta: masked(r.delta) });
            if (page.length < PAGE) break;
            const last = page.at(-1)!;
            after = { collection: last.collection, itemId: last.itemId, version: last.version };
          }
        }
      },
    },
  ];
}
