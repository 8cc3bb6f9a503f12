import { resourceOf, RESOURCES } from '../../kernel/auth/authorizer.ts';
import { FILES_COLLECTION, isSystemCollection } from '../../contracts/schema/system-collections.types.ts';
import { DomainError } from '../../kernel/http/errors.ts';
import { compileFilter, rootScope } from '../../../projections/item-documents/index.ts';
import { type SiteSchema } from '../../../projections/schema/index.ts';
import { InvalidRule } from './access.errors.ts';
import type { PermissionDef } from '../../contracts/access/access.types.ts';
import { fillVars, ruleVars } from './effective.ts';

const AUDIT = new Set(['id', 'created_at', 'created_by', 'updated_at', 'updated_by', 'status', 'sort']);
const bad = (reason: string, path: string[]) => new InvalidRule({ reason, path });

/**
 * Media, pages and translation-memory rules: pages and the memory are granted whole, since a condition or field list
 * there would not be enforced.
 */
function checkSystemRule(rule: PermissionDef): void {
  const { collection } = rule;
  if (rule.action === 'share') throw bad(`${collection} permissions are create, read, update and delete`, ['action']);
  if (collection !== RESOURCES.pages && collection !== RESOURCES.tm) return;
  for (const part of ['conditions', 'validation', 'presets'] as const)
    if (rule[part] && Object.keys(rule[part]).length) throw bad(`${collection} rules take no ${part}`, [part]);
  if (!(rule.fields.length === 1 && rule.fields[0] === '*'))
    throw bad(`${collection} rules cover every field: fields must be ["*"]`, ['fields']);
}

/** The rule's fields, presets, conditions and validation against one collection of the schema. */
function checkAgainst(schema: SiteSchema, c: string, rule: PermissionDef, now: Date): void {
  const fields = schema.fields.get(c) ?? new Map();
  rule.fields.forEach((f, i) => {
    if (f !== '*' && !fields.has(f) && !AUDIT.has(f)) throw bad(`${c} has no field ${f}`, ['fields', String(i)]);
  });
  for (const key of Object.keys(rule.presets ?? {}))
    if (!fields.has(key) && key !== 'status' && key !== 'sort') throw bad(`${c} has no field ${key}`, ['presets', key]);
  const sample = ruleVars('user', 'role', now);
  for (const part of ['conditions', 'validation'] as const) {
    const f = rule[part];
    if (!f) continue;
    try {
      compileFilter(fillVars(f, sample) as Record<string, unknown>, rootScope(schema, c));
    } catch (err) {
      if (err instanceof DomainError)
        throw bad(`${part}: ${err.message}`, [part, ...(err.options.path ?? []).slice(1)]);
      throw err;
    }
  }
}

/**
 * A rule must name a known collection (`*` for all, `media` for files, `_pages` for pages, `_tm` for the translation
 * memory) and its fields, and its
 * conditions and validation must compile as filters of that collection (variables stand in as values). 400 otherwise.
 */
export function checkRule(schema: SiteSchema, rule: PermissionDef, now: Date): void {
  const { collection } = rule;
  if (collection === RESOURCES.media) {
    checkSystemRule(rule);
    // Media rules govern file records: their fields, presets and conditions are those of the files collection.
    return checkAgainst(schema, FILES_COLLECTION, rule, now);
  }
  if (collection === RESOURCES.pages || collection === RESOURCES.tm) return checkSystemRule(rule);
  if (isSystemCollection(collection))
    throw bad(`rules on ${collection} are rules on ${resourceOf(collection)}: name that instead`, ['collection']);
  if (collection !== '*' && !schema.collections.has(collection))
    throw bad(`collection ${collection} does not exist`, ['collection']);
  // `*` covers the site's own collections, not the system ones (their resource's rules govern them).
  const collections =
    collection === '*' ? [...schema.collections.keys()].filter((c) => !isSystemCollection(c)) : [collection];
  for (const c of collections) checkAgainst(schema, c, rule, now);
}
