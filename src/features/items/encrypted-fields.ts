import { envelopeKeyId, openValue, sealValue } from '../../platform/crypto/envelope.ts';
import type { Keyring } from '../../kernel/crypto/keyring.ts';
import { personalSubject } from '../../platform/privacy/pii.ts';
import type { ErrorObject } from '../../kernel/http/errors.ts';
import { EncryptionKeyRequired, InvalidValues } from './item.errors.ts';
import { relationIndex, type SiteSchema } from '../../../projections/schema/index.ts';
import type { RelationRecord } from '../../../projections/schema/index.ts';
import type { FieldDef } from '../../contracts/schema/schema.types.ts';
import type { ItemValues } from '../../contracts/items/item.events.ts';
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
/** What one sealed personal value reads as (see personal-fields.ts): in clear, or its erased value. */
export type OpenPersonal = (collection: string, id: string, field: string, sealed: string) => unknown;

/**
 * Decrypts the encrypted values of records (and of the related records expanded into them) where the caller may,
 * value by value, and masks them as '***' everywhere else; a value whose key is no longer configured reads as '***' too.
 * Sealed personal values go through `personal`.
 */
export function revealRecords<T>(
  ring: Keyring,
  site: string,
  schema: SiteSchema,
  collection: string,
  value: T,
  mayDecrypt: MayDecrypt,
  personal?: OpenPersonal,
): T {
  if (Array.isArray(value))
    return value.map((v) => revealRecords(ring, site, schema, collection, v, mayDecrypt, personal)) as T;
  if (!isRecord(value)) return value;
  // Only the keys that can hold an envelope or a related record are looked at; a record none of them changes is
  // answered as it is (most collections have neither, and a list of them is not copied).
  let out: Rec | null = null;
  for (const { key, encrypted, personal: isPersonal, relation: r } of keysToReveal(schema, collection)) {
    if (!Object.hasOwn(value, key)) continue;
    const v = value[key];
    let next: unknown = v;
    if (isPersonal) {
      if (!personal || typeof v !== 'string' || !personalSubject(v)) continue;
      next = personal(collection, String(value.id), key, v);
    } else if (encrypted && typeof v === 'string' && envelopeKeyId(v)) {
      const plain = mayDecrypt(collection, String(value.id), key)
        ? openValue(ring, v, placeOf(site, collection, String(value.id), key))
        : null;
      next = plain === null ? MASK : (JSON.parse(plain) as unknown);
    } else if (!r || v === null || typeof v !== 'object') {
      continue;
    } else if (r.kind === 'm2a' && Array.isArray(v)) {
      const entries = v.map((e: { collection?: unknown; item?: unknown }) => {
        if (!e || typeof e.collection !== 'string' || !isRecord(e.item)) return e;
        const item = revealRecords(ring, site, schema, e.collection, e.item, mayDecrypt, personal);
        return item === e.item ? e : { ...e, item };
      });
      if (entries.some((e, i) => e !== v[i])) next = entries;
    } else if (r.target) {
      next = revealRecords(ring, site, schema, r.target, v, mayDecrypt, personal);
    }
    if (next === v) continue;
    out ??= { ...value };
    out[key] = next;
  }
  return (out ?? value) as T;
}

interface RevealKey {
  key: string;
  encrypted: boolean;
  personal: boolean;
  relation: RelationRecord | undefined;
}

const revealKeys = new WeakMap<SiteSchema, Map<string, RevealKey[]>>();

/** The fields of a collection that are encrypted, personal or lead to related records. */
function keysToReveal(schema: SiteSchema, collection: string): RevealKey[] {
  let byCollection = revealKeys.get(schema);
  if (!byCollection) revealKeys.set(schema, (byCollection = new Map()));
  let keys = byCollection.get(collection);
  if (!keys) {
    const relations = relationIndex(schema).get(collection) ?? new Map<string, RelationRecord>();
    const fields = [...(schema.fields.get(collection)?.values() ?? [])];
    const encrypted = fields.filter((f) => f.encrypted).map((f) => f.field);
    const personal = fields.filter((f) => f.personal).map((f) => f.field);
    keys = [...new Set([...encrypted, ...personal, ...relations.keys()])].map((key) => ({
      key,
      encrypted: encrypted.includes(key),
      personal: personal.includes(key),
      relation: relations.get(key),
    }));
    byCollection.set(collection, keys);
  }
  return keys;
}
