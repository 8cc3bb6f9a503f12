import { own } from '../../src/kernel/safe/keys.ts';
import type { ItemRecord } from './item-record.ts';

/**
 * Server-side translation: an item's `translations` value holds `{ <locale>: { <field>: value } }`; with a locale
 * asked for, each translated value replaces the item's own. The exact locale wins, then its language (`pt-BR` →
 * `pt`); a field without a translation keeps its value.
 */
export function translateRecord(record: ItemRecord, locale: string | null): ItemRecord {
  const all = record.translations;
  if (!locale || !all || typeof all !== 'object' || Array.isArray(all)) return record;
  const t = all as Record<string, unknown>;
  const chosen = own(t, locale) ?? own(t, locale.split('-')[0]!);
  if (!chosen || typeof chosen !== 'object' || Array.isArray(chosen)) return record;
  const out: ItemRecord = { ...record };
  for (const [k, v] of Object.entries(chosen)) {
    if (k !== 'id' && k !== 'translations' && !['created_at', 'created_by', 'updated_at', 'updated_by'].includes(k))
      Object.defineProperty(out, k, { value: v, enumerable: true, writable: true, configurable: true });
  }
  return out;
}
