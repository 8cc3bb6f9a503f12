import { describe, expect, it } from 'vitest';
import { can, grantOf, navigation, readableCollections, type PermissionMatrix } from '../../studio/src/nav.ts';
import { columnsOf, pageCount, showValue } from '../../studio/src/items-table.ts';

const all = { fields: ['*'], conditions: {} };
const matrix = (collections: Record<string, unknown>, admin = false): PermissionMatrix => ({
  role: admin ? 'admin' : 'viewer',
  roleChain: [],
  admin,
  policies: [],
  collections,
});

describe('the studio navigation from the permission matrix', () => {
  it('lists the collections the caller may read, in name order, and leaves out the rest', () => {
    const m = matrix({
      posts: { create: false, read: all, update: false, delete: false, share: false },
      authors: { read: { fields: ['name'], conditions: { status: { _eq: 'public' } } } },
      secrets: { create: false, read: false, update: false, delete: false, share: false },
      media: { read: all },
      _pages: { read: all },
      _tm: { read: all },
    });
    expect(readableCollections(m)).toEqual(['authors', 'posts']);
    expect(navigation(m)).toEqual([
      { key: 'collections', label: 'nav.collections', to: 'collections' },
      { key: 'collection:authors', label: 'authors', to: 'collection', collection: 'authors' },
      { key: 'collection:posts', label: 'posts', to: 'collection', collection: 'posts' },
    ]);
    expect(grantOf(m, 'authors', 'read')).toEqual({ fields: ['name'], conditions: { status: { _eq: 'public' } } });
    expect(can(m, 'posts', 'update')).toBe(false);
  });

  it('shows nothing to a caller who may read nothing', () => {
    expect(navigation(matrix({ posts: { read: false } }))).toEqual([]);
    expect(navigation(matrix({}))).toEqual([]);
  });

  it('takes a malformed grant and inherited names as no grant', () => {
    const m = matrix({
      a: { read: { fields: [] } },
      b: { read: true },
      c: { read: { fields: 'all' } },
      d: null,
      e: 'read',
    });
    expect(readableCollections(m)).toEqual([]);
    for (const name of ['__proto__', 'constructor', 'toString', 'hasOwnProperty'])
      expect(can(m, name, 'read')).toBe(false);
    expect(can(matrix({ x: { toString: all } }), 'x', 'read')).toBe(false);
  });
});

describe('the items table', () => {
  it('shows id first, then the other keys as first seen, at most eight', () => {
    expect(
      columnsOf([
        { title: 'a', id: 1 },
        { id: 2, body: 'b' },
      ]),
    ).toEqual(['id', 'title', 'body']);
    const wide = Object.fromEntries(Array.from({ length: 12 }, (_, i) => [`f${i}`, i]));
    expect(columnsOf([wide])).toHaveLength(8);
    expect(columnsOf([])).toEqual([]);
  });

  it('reads values as text, objects as JSON, long ones cut', () => {
    expect(showValue(null)).toBe('');
    expect(showValue(undefined)).toBe('');
    expect(showValue(false)).toBe('false');
    expect(showValue({ a: [1] })).toBe('{"a":[1]}');
    expect(showValue('x'.repeat(500))).toHaveLength(120);
  });

  it('counts pages, at least one', () => {
    expect(pageCount(undefined, 25)).toBe(1);
    expect(pageCount(0, 25)).toBe(1);
    expect(pageCount(25, 25)).toBe(1);
    expect(pageCount(26, 25)).toBe(2);
  });
});
