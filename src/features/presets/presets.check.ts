import type { AppDeps } from '../../deps.ts';
import { DomainError } from '../../kernel/http/errors.ts';
import { inspectJson } from '../../platform/http/input-guard.ts';
import { own } from '../../kernel/safe/keys.ts';
import { findUserById } from '../../../projections/users/index.ts';
import { compileFilter, rootScope } from '../../../projections/item-documents/index.ts';
import { type SiteSchema } from '../../../projections/schema/index.ts';
import { roleIsKnown } from '../access/index.ts';
import { InvalidPreset } from './presets.errors.ts';
import type { PresetDefinition } from '../../contracts/presets/presets.events.ts';

/** Bytes the layout options of one preset may take, as JSON. */
export const MAX_LAYOUT_OPTIONS_BYTES = 16 * 1024;
/** Segments of a dotted field path (the filter's own limit, spec "Limits"). */
const MAX_PATH_SEGMENTS = 8;
/** Values every item has besides its collection's fields (the item list accepts them in fields and sort). */
const ITEM_COLUMNS = new Set(['id', 'status', 'sort', 'created_at', 'created_by', 'updated_at', 'updated_by']);
const SEGMENT = /^[A-Za-z0-9_]+$/;

type Deps = Pick<AppDeps, 'db' | 'store' | 'schemas'>;
const bad = (message: string, path: string[], reason: string) => new InvalidPreset({ message, path, reason });

function checkSafe(value: unknown, path: string[]): void {
  const problem = inspectJson(value, path);
  if (problem) throw bad(problem.message, problem.path, problem.reason);
}

/** `*`, a field of the collection, or a dotted path from one (a relation or a JSON value); `-` first in a sort. */
function checkNames(schema: SiteSchema, collection: string, list: string[] | null, key: 'fields' | 'sort'): void {
  const fields = schema.fields.get(collection);
  list?.forEach((entry, i) => {
    const path = ['query', key, String(i)];
    const name = key === 'sort' ? entry.replace(/^-/, '') : entry;
    const segments = name.split('.');
    const wild = (s: string, at: number) => key === 'fields' && s === '*' && at === segments.length - 1;
    if (segments.length > MAX_PATH_SEGMENTS || !segments.every((s, at) => SEGMENT.test(s) || wild(s, at)))
      throw bad(`${entry} is not a field path`, path, 'invalid_path');
    const head = segments[0]!;
    if (head !== '*' && !fields?.has(head) && !ITEM_COLUMNS.has(head))
      throw bad(`${collection} has no field ${head}`, path, 'unknown_field');
  });
}

/** The filter compiles as an item filter of the collection (the list's own rules: fields, operators, limits). */
function checkFilter(schema: SiteSchema, collection: string, filter: Record<string, unknown> | null): void {
  if (filter === null) return;
  checkSafe(filter, ['query', 'filter']);
  try {
    compileFilter(filter, rootScope(schema, collection));
  } catch (err) {
    if (!(err instanceof DomainError)) throw err;
    throw bad(err.message, ['query', ...(err.options.path ?? ['filter'])], 'invalid_filter');
  }
}

async function checkOwner(deps: Deps, siteId: string, def: PresetDefinition): Promise<void> {
  if (def.roleId !== null && !(await roleIsKnown(deps, siteId, def.roleId)))
    throw bad(`role ${def.roleId} does not exist`, ['roleId'], 'unknown_role');
  if (def.userId === null) return;
  const user = await findUserById(deps.db, def.userId);
  if (!user || !(own(user.roles, siteId) || user.instanceAdmin))
    throw bad(`user ${def.userId} is not a member of this site`, ['userId'], 'not_a_member');
}

/**
 * A preset fits the site: its collection exists, its owner is a known role or a member, its fields and sort name
 * fields, its filter compiles, its layout options are a safe JSON object within the size cap. Only the parts a
 * change touches are checked (`touched`), so a preset whose collection went away can still be renamed or moved.
 */
export async function checkPreset(
  deps: Deps,
  siteId: string,
  def: PresetDefinition,
  touched: ReadonlySet<keyof PresetDefinition>,
): Promise<void> {
  if (touched.has('bookmark')) checkSafe(def.bookmark, ['bookmark']);
  if (touched.has('query')) checkSafe(def.query, ['query']);
  if (touched.has('layoutOptions') && def.layoutOptions !== null) {
    checkSafe(def.layoutOptions, ['layoutOptions']);
    if (Buffer.byteLength(JSON.stringify(def.layoutOptions)) > MAX_LAYOUT_OPTIONS_BYTES)
      throw bad(`layoutOptions take at most ${MAX_LAYOUT_OPTIONS_BYTES} bytes as JSON`, ['layoutOptions'], 'too_large');
  }
  if (touched.has('userId') || touched.has('roleId')) await checkOwner(deps, siteId, def);
  if (!touched.has('collection') && !touched.has('query')) return;
  const schema = await deps.schemas.read(siteId);
  if (!schema.collections.has(def.collection))
    throw bad(`collection ${def.collection} does not exist`, ['collection'], 'unknown_collection');
  checkNames(schema, def.collection, def.query.fields, 'fields');
  checkNames(schema, def.collection, def.query.sort, 'sort');
  checkFilter(schema, def.collection, def.query.filter);
}
