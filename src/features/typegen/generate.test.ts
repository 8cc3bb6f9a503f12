import { describe, expect, it } from 'vitest';
import { generate, literal } from './generate.ts';
import { Lru } from './typegen.cache.ts';
import type { ManifestCollection, ManifestField, TypegenManifest } from './typegen.manifest.ts';
import { pascalCase, typeNames } from './typegen.names.ts';

const f = (name: string, more: Partial<ManifestField> = {}): ManifestField => ({
  name,
  type: 'string',
  required: false,
  nullable: true,
  readonly: false,
  generated: false,
  system: false,
  encrypted: false,
  primaryKey: false,
  ...more,
});
const collection = (name: string, fields: ManifestField[] = []): ManifestCollection => ({
  name,
  primaryKey: 'id',
  primaryKeyField: 'id',
  primaryKeyType: 'nanoid',
  fields: [f('id', { primaryKey: true, required: true, nullable: false, readonly: true, generated: true }), ...fields],
  relations: [],
});
const manifest = (...collections: ManifestCollection[]): TypegenManifest => ({ version: 2, site: 'main', collections });
const single = (m: TypegenManifest, branded = true) => generate(m, { format: 'single', branded }).get('schema.ts')!;

describe('type names', () => {
  it('turns snake_case into PascalCase', () => {
    expect(pascalCase('blog_posts')).toBe('BlogPosts');
    expect(pascalCase('x')).toBe('X');
    expect(pascalCase('9lives')).toBe('C9lives');
    expect(pascalCase('__')).toBe('Collection');
  });

  it('tells colliding names apart in name order, around the reserved ones', () => {
    const names = typeNames(['a_b', 'a__b', 'ab', 'schema', 'item_ref', 'articles_id', 'articles']);
    expect(Object.fromEntries(names)).toEqual({
      a__b: 'AB',
      a_b: 'AB2',
      ab: 'Ab',
      articles: 'Articles',
      articles_id: 'ArticlesId2',
      item_ref: 'ItemRef2',
      schema: 'Schema2',
    });
  });
});

describe('generate', () => {
  it('maps each value type and attribute as the spec says', () => {
    const src = single(
      manifest(
        collection('things', [
          f('a', { type: 'text', required: true, nullable: false }),
          f('b', { type: 'decimal' }),
          f('c', { type: 'json', nullable: false }),
          f('d', { type: 'geometry' }),
          f('e', { type: 'enum', choices: ['x', "it's"] }),
          f('g', { type: 'text', encrypted: true }),
          f('h', { type: 'boolean', readonly: true, required: true, nullable: false }),
          f('created_at', { type: 'datetime', generated: true, required: true, nullable: false, system: true }),
        ]),
      ),
    );
    expect(src).toContain('export type ThingsId = string & { readonly __brand: "ThingsId" };');
    expect(src).toContain('  readonly id: ThingsId;\n  a: string;\n  b?: number | null;\n  c?: unknown;\n');
    expect(src).toContain('  d?: GeoJSONGeometry | null;\n  e?: "x" | "it\'s" | null;\n');
    expect(src).toContain("  g?: string | '***' | null;\n  readonly h: boolean;\n  readonly created_at: string;\n");
    expect(src).toContain('export interface Schema {\n  things: Things;\n}');
    expect(single(manifest(collection('things')), false)).toContain('export type ThingsId = string;');
  });

  it('writes awkward names as quoted keys and escaped literals, never as code', () => {
    const hostile = 'x"; export const pwned = 1; //*/\u2028';
    const src = single(
      manifest(
        collection('__proto__', [
          f('constructor', { type: 'enum', choices: [hostile] }),
          f('weird-name', { type: 'constructor' as ManifestField['type'] }),
          f('m', { kind: 'm2o', target: 'missing' }),
        ]),
      ),
    );
    expect(src).toContain(`  constructor?: ${literal(hostile)} | null;`);
    expect(src).toContain('  "weird-name"?: unknown | null;');
    // A reference to a collection outside the manifest keeps the carrier's own type.
    expect(src).toContain('  m?: string | null;');
    expect(src).toContain('  "__proto__": Proto;');
    expect(src).not.toContain('\u2028');
    expect(src).not.toMatch(/^export const/m);
    expect(src).not.toMatch(/ of "[^\n]*\*\/[^\n]*" /);
  });

  it('writes a file per collection, `_common.ts` and `index.ts`, with file names that cannot meet', () => {
    const files = generate(
      manifest(collection('index'), collection('posts', [f('parent', { kind: 'm2o', target: 'index' })])),
      { format: 'per-collection', branded: true },
    );
    expect([...files.keys()]).toEqual(['_common.ts', 'index.ts', 'index_2.ts', 'posts.ts']);
    expect(files.get('posts.ts')).toContain("import type { IndexId } from './index_2.js';");
    expect(files.get('index.ts')).toContain("export type { Index, IndexId } from './index_2.js';");
  });

  it('is deterministic whatever the order of the manifest', () => {
    const m = manifest(collection('b'), collection('a'), collection('c'));
    const reversed = { ...m, collections: [...m.collections].reverse() };
    expect(single(m)).toBe(single(reversed));
    expect(single(m).indexOf('interface A ')).toBeLessThan(single(m).indexOf('interface B '));
  });
});

describe('Lru', () => {
  it('drops the least recently used entry past its size', () => {
    const lru = new Lru<number>(2);
    lru.set('a', 1);
    lru.set('b', 2);
    expect(lru.get('a')).toBe(1);
    lru.set('c', 3);
    expect([lru.get('a'), lru.get('b'), lru.get('c'), lru.size]).toEqual([1, undefined, 3, 2]);
  });
});
