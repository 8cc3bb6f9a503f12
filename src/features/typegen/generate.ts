import type { ManifestCollection, ManifestField, TypegenManifest } from './typegen.manifest.ts';
import { own as ownValue } from '../../kernel/safe/keys.ts';
import { isIdentifier, keyTypeName, typeNames } from './typegen.names.ts';

export interface GenerateOptions {
  /** `single`: one file (`schema.ts`); `per-collection`: a file per collection, `_common.ts` and `index.ts`. */
  format: 'single' | 'per-collection';
  /** Key types as brands (`string & { readonly __brand: 'ArticlesId' }`) instead of plain aliases. */
  branded: boolean;
}

/** The file name of the `single` format. */
export const SINGLE_FILE = 'schema.ts';
const COMMON = '_common';

const SCALAR: Record<ManifestField['type'], string> = {
  string: 'string',
  text: 'string',
  hash: 'string',
  csv: 'string',
  uuid: 'string',
  date: 'string',
  datetime: 'string',
  time: 'string',
  timestamp: 'string',
  integer: 'number',
  bigInteger: 'number',
  decimal: 'number',
  boolean: 'boolean',
  json: 'unknown',
  geometry: 'GeoJSONGeometry',
  enum: 'string',
};

/** A string literal any TypeScript parser reads back as `s` (JSON escapes, plus the two line separators). */
export const literal = (s: string): string =>
  JSON.stringify(s)
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');

const scalar = (f: ManifestField) => ownValue(SCALAR, f.type) ?? 'unknown';
/** A name inside a doc comment: as a literal, with `*\/` broken so it cannot end the comment. */
const named = (s: string) => literal(s).replace(/\*\//g, '*\\/');
/** A property name: bare when it is an identifier (`__proto__` quoted all the same, for the reader). */
const key = (name: string) => (isIdentifier(name) && name !== '__proto__' ? name : literal(name));
const byName = <T extends { name: string }>(a: T, b: T) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

const COMMON_SOURCE = `/** A GeoJSON position: longitude, latitude and optionally altitude. */
export type GeoJSONPosition = number[];
/** A GeoJSON geometry (RFC 7946), the value of a geometry field. */
export type GeoJSONGeometry =
  | { type: 'Point'; coordinates: GeoJSONPosition; bbox?: number[] }
  | { type: 'MultiPoint'; coordinates: GeoJSONPosition[]; bbox?: number[] }
  | { type: 'LineString'; coordinates: GeoJSONPosition[]; bbox?: number[] }
  | { type: 'MultiLineString'; coordinates: GeoJSONPosition[][]; bbox?: number[] }
  | { type: 'Polygon'; coordinates: GeoJSONPosition[][]; bbox?: number[] }
  | { type: 'MultiPolygon'; coordinates: GeoJSONPosition[][][]; bbox?: number[] }
  | { type: 'GeometryCollection'; geometries: GeoJSONGeometry[]; bbox?: number[] };
`;

/** What the code of one collection needs: its names, and every collection's key type by collection name. */
interface Names {
  type: Map<string, string>;
  collections: Map<string, ManifestCollection>;
}

/** The names the manifest's `branded` values give the collections' types (`ArticlesId` → `Articles`). */
function preferredNames(manifest: TypegenManifest): Map<string, string> {
  const out = new Map<string, string>();
  for (const c of manifest.collections) {
    const brand = c.fields.find((f) => f.primaryKey)?.branded;
    if (brand && brand.endsWith('Id') && brand.length > 2) out.set(c.name, brand.slice(0, -2));
  }
  return out;
}

/**
 * The value of a key: a string for nanoid and uuid keys. Integer keys are sent as numbers (create, integer fields
 * that reference them) and read back as strings of digits (every record id is text), so both forms are the key.
 */
const keyBase = (c: ManifestCollection) =>
  c.primaryKeyType === 'integer' || c.primaryKeyType === 'bigInteger' ? 'number | `${number}`' : 'string';

/** The type of a field's value, before `| null`; `uses` collects the shared names it refers to. */
function valueType(f: ManifestField, names: Names, uses: Set<string>): string {
  const keyOf = (collection: string | undefined): string | null => {
    const base = collection === undefined ? undefined : names.type.get(collection);
    if (base === undefined) return null;
    uses.add(keyTypeName(base));
    return keyTypeName(base);
  };
  if (f.kind === 'm2a') {
    uses.add('ItemRef');
    return 'ItemRef[]';
  }
  if (f.kind === 'o2m' || f.kind === 'm2m') return `${keyOf(f.target) ?? '(string | number)'}[]`;
  if (f.kind === 'm2o') return keyOf(f.target) ?? scalar(f);
  if (f.type === 'enum' && f.choices?.length) return [...new Set(f.choices)].map(literal).join(' | ');
  if (f.type === 'geometry') uses.add('GeoJSONGeometry');
  return scalar(f);
}

/**
 * One property: `readonly` when the field is read-only or generated, `?` when not required, `| '***'` for encrypted
 * fields, `| null` for nullable ones.
 */
function property(c: ManifestCollection, f: ManifestField, names: Names, uses: Set<string>): string {
  const own = names.type.get(c.name)!;
  let type = f.primaryKey ? keyTypeName(own) : valueType(f, names, uses);
  if (f.encrypted) type += ` | '***'`;
  if (f.nullable && !f.primaryKey) type += ' | null';
  const ro = f.readonly || f.generated ? 'readonly ' : '';
  return `  ${ro}${key(f.name)}${f.required ? '' : '?'}: ${type};`;
}

function collectionSource(c: ManifestCollection, names: Names, opts: GenerateOptions, uses: Set<string>): string {
  const type = names.type.get(c.name)!;
  const id = keyTypeName(type);
  const base = keyBase(c);
  const brand = `{ readonly __brand: ${literal(id)} }`;
  const keyType = opts.branded ? `${base.includes('|') ? `(${base})` : base} & ${brand}` : base;
  const lines = [
    `/** The key of an item of ${named(c.name)} (primary key type ${named(c.primaryKeyType)}). */`,
    `export type ${id} = ${keyType};`,
    `/** An item of ${named(c.name)}. */`,
    `export interface ${type} {`,
    ...c.fields.map((f) => property(c, f, names, uses)),
    '}',
  ];
  return lines.join('\n') + '\n';
}

function itemRefSource(collections: ManifestCollection[], names: Names): string {
  const members = collections.map((c) => {
    const id = keyTypeName(names.type.get(c.name)!);
    return `  | { collection: ${literal(c.name)}; item: ${id} }`;
  });
  return [
    '/** An entry of an m2a field: an item of any collection of the manifest. */',
    `export type ItemRef =${members.length ? `\n${members.join('\n')}` : ' never'};`,
    '',
  ].join('\n');
}

function schemaSource(collections: ManifestCollection[], names: Names): string {
  return [
    '/** Every collection of the manifest, by name, with the type of its items. */',
    'export interface Schema {',
    ...collections.map((c) => `  ${key(c.name)}: ${names.type.get(c.name)!};`),
    '}',
    'export type CollectionName = keyof Schema;',
    '',
  ].join('\n');
}

const header = (m: TypegenManifest) =>
  `// Generated from the type-generation manifest (version ${m.version}) of site ${literal(m.site)}. Do not edit.\n`;

/**
 * TypeScript types of a type-generation manifest (spec "Type generation"), as file name → source. Pure and
 * deterministic: the same manifest and options give the same files, collections in name order.
 */
export function generate(manifest: TypegenManifest, opts: GenerateOptions): Map<string, string> {
  const collections = [...manifest.collections].sort(byName);
  const names: Names = {
    type: typeNames(
      collections.map((c) => c.name),
      preferredNames(manifest),
    ),
    collections: new Map(collections.map((c) => [c.name, c])),
  };
  return opts.format === 'single'
    ? new Map([[SINGLE_FILE, single(manifest, collections, names, opts)]])
    : perCollection(manifest, collections, names, opts);
}

function single(m: TypegenManifest, collections: ManifestCollection[], names: Names, opts: GenerateOptions): string {
  const parts = [header(m), COMMON_SOURCE, itemRefSource(collections, names)];
  for (const c of collections) parts.push(collectionSource(c, names, opts, new Set()));
  parts.push(schemaSource(collections, names));
  return parts.join('\n');
}

/** File stems of the collections: lower-case [a-z0-9_], unique without regard to case, never `index`/`_common`. */
function fileStems(collections: ManifestCollection[]): Map<string, string> {
  const used = new Set(['index', COMMON]);
  const out = new Map<string, string>();
  for (const c of collections) {
    let stem = c.name.toLowerCase().replace(/[^a-z0-9_]+/g, '_');
    if (!/^[a-z0-9]/.test(stem)) stem = `c${stem}`;
    let n = 1;
    while (used.has(n === 1 ? stem : `${stem}_${n}`)) n++;
    stem = n === 1 ? stem : `${stem}_${n}`;
    used.add(stem);
    out.set(c.name, stem);
  }
  return out;
}

const importLine = (names: Iterable<string>, from: string) => {
  const list = [...names].sort();
  return list.length ? [`import type { ${list.join(', ')} } from './${from}.js';`] : [];
};

function perCollection(
  m: TypegenManifest,
  collections: ManifestCollection[],
  names: Names,
  opts: GenerateOptions,
): Map<string, string> {
  const stems = fileStems(collections);
  const stemOfType = new Map<string, string>();
  for (const c of collections) {
    const type = names.type.get(c.name)!;
    stemOfType.set(type, stems.get(c.name)!);
    stemOfType.set(keyTypeName(type), stems.get(c.name)!);
  }
  const files = new Map<string, string>();
  files.set(
    `${COMMON}.ts`,
    [header(m), ...importByFile(keyTypesOf(collections, names), stemOfType, ''), '', COMMON_SOURCE]
      .concat(itemRefSource(collections, names))
      .join('\n'),
  );
  for (const c of collections) {
    const uses = new Set<string>();
    const body = collectionSource(c, names, opts, uses);
    const own = stems.get(c.name)!;
    const imports = importByFile(uses, stemOfType, own);
    files.set(`${own}.ts`, [header(m), ...imports, ...(imports.length ? [''] : []), body].join('\n'));
  }
  const exports = [
    `export type { GeoJSONGeometry, GeoJSONPosition, ItemRef } from './${COMMON}.js';`,
    ...collections.map((c) => {
      const type = names.type.get(c.name)!;
      return `export type { ${type}, ${keyTypeName(type)} } from './${stems.get(c.name)}.js';`;
    }),
  ];
  const imports = collections.flatMap((c) => importLine([names.type.get(c.name)!], stems.get(c.name)!));
  files.set('index.ts', [header(m), ...exports, ...imports, '', schemaSource(collections, names)].join('\n'));
  return new Map([...files].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

const keyTypesOf = (collections: ManifestCollection[], names: Names) =>
  new Set(collections.map((c) => keyTypeName(names.type.get(c.name)!)));

/** `import type` lines for the names a file uses, grouped by the file that declares them (not `own`). */
function importByFile(uses: Set<string>, stemOfType: Map<string, string>, own: string): string[] {
  const byFile = new Map<string, string[]>();
  for (const name of uses) {
    const file = stemOfType.get(name) ?? COMMON;
    if (file === own) continue;
    byFile.set(file, [...(byFile.get(file) ?? []), name]);
  }
  return [...byFile.keys()].sort().flatMap((file) => importLine(byFile.get(file)!, file));
}
