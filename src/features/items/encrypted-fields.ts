import { envelopeKeyId, openValue, sealValue } from '../../kernel/crypto/envelope.ts';
import type { Keyring } from '../../kernel/crypto/keyring.ts';
import type { ErrorObject } from '../../kernel/http/errors.ts';
import { EncryptionKeyRequired, InvalidValues } from './item.errors.ts';
import { relationOn, type SiteSchema } from '../../../projections/item-documents/index.ts';
import type { FieldDef } from '../schema/index.ts';
import type { ItemValues } from './item.events.ts';
import { typeProblem } from './item.values.ts';

/** What an encrypted value reads as for a caller who may not decrypt it, or when its key is gone. */
export const MASK = '***';

/** The ciphertext is bound to its place: site, collection, item and field. */
export const placeOf = (site: string, collection: string, id: string, field: string) =>
  `${site}/${collection}/${id}/${field}`;

/**
 * Encrypts the values of encrypted fields before they go into a command, so neither the log nor the read model
 * ever holds the plaintext. Each value is type-checked first (the decider then sees only the envelope).
 */
export function sealItemValues(
  ring: Keyring,
  site: string,
  collection: string,
  id: string,
  fields: FieldDef[],
  values: ItemValues,
  pathPrefix: string[] = [],
): ItemValues {
  const out = { ...values };
  const problems: ErrorObject[] = [];
  for (const f of fields) {
    if (!f.encrypted || values[f.field] === undefined || values[f.field] === null) continue;
    const p = typeProblem(f, values[f.field]);
    if (p) {
      problems.push({
        code: 'VALIDATION_FAILED',
        message: `${f.field} ${p}`,
        path: [...pathPrefix, f.field],
        extensions: { reason: 'type' },
      });
      continue;
    }
    if (!ring.activeKeyId) throw new EncryptionKeyRequired({ field: f.field, path: [...pathPrefix, f.field] });
    out[f.field] = sealValue(ring, JSON.stringify(values[f.field]), placeOf(site, collection, id, f.field));
  }
  if (problems.length) throw new InvalidValues(problems);
  return out;
}

type Rec = Record<string, unknown>;
const isRecord = (v: unknown): v is Rec & { id: unknown } =>
  !!v && typeof v === 'object' && !Array.isArray(v) && 'id' in v;

/** Whether the caller may see one encrypted value in clear: the record's collection, its id and the field. */
export type MayDecrypt = (collection: string, id: string, field: string) => boolean;

/**
 * Decrypts the encrypted values of records (and of the related records expanded into them) where the caller may,
 * value by value, and masks them as '***' everywhere else; a value whose key is no longer configured reads as '***' too.
 */
export function revealRecords<T>(
  ring: Keyring,
  site: string,
  schema: SiteSchema,
  collection: string,
  value: T,
  mayDecrypt: MayDecrypt,
): T {
  if (Array.isArray(value)) return value.map((v) => revealRecords(ring, site, schema, collection, v, mayDecrypt)) as T;
  if (!isRecord(value)) return value;
  const out: Rec = { ...value };
  const fields = schema.fields.get(collection);
  for (const [key, v] of Object.entries(value)) {
    const f = fields?.get(key);
    if (f?.encrypted && typeof v === 'string' && envelopeKeyId(v)) {
      const plain = mayDecrypt(collection, String(value.id), key)
        ? openValue(ring, v, placeOf(site, collection, String(value.id), key))
        : null;
      out[key] = plain === null ? MASK : (JSON.parse(plain) as unknown);
      continue;
    }
    const r = relationOn(schema, collection, key);
    if (!r || v === null || typeof v !== 'object') continue;
    if (r.kind === 'm2a' && Array.isArray(v)) {
      out[key] = v.map((e: { collection?: unknown; item?: unknown }) =>
        e && typeof e.collection === 'string' && isRecord(e.item)
          ? { ...e, item: revealRecords(ring, site, schema, e.collection, e.item, mayDecrypt) }
          : e,
      );
    } else if (r.target) out[key] = revealRecords(ring, site, schema, r.target, v, mayDecrypt);
  }
  return out as T;
}
