import { describe, expect, it } from 'vitest';
import { afterFieldDeleted, filterNames, optionsName, queryWithout } from './presets.rewrite.ts';

const query = {
  fields: ['title', 'category.name', '*'],
  filter: null,
  sort: ['-category', 'title'],
  limit: 10,
  search: null,
};

describe('A preset after a field is deleted', () => {
  it('drops the field from fields and sort, paths from it included', () =>
    expect(queryWithout(query, 'category')).toEqual({ ...query, fields: ['title', '*'], sort: ['title'] }));
  it('leaves a list that empties as null', () =>
    expect(queryWithout({ ...query, fields: ['category'] }, 'category').fields).toBeNull());
  it('finds the field in a filter through _and and _or, not inside a relation', () => {
    expect(filterNames({ _and: [{ _or: [{ 'category.x': { _eq: 1 } }] }] }, 'category')).toBe(true);
    expect(filterNames({ author: { category: { _eq: 1 } } }, 'category')).toBe(false);
  });
  it('finds the field in layout options as a key or a whole value', () => {
    expect(optionsName({ tabular: { widths: { category: 200 } } }, 'category')).toBe(true);
    expect(optionsName({ cards: { title: 'category' } }, 'category')).toBe(true);
    expect(optionsName({ cards: { title: 'categoryName' } }, 'category')).toBe(false);
  });
  it('flags it stale once, with the field named', () => {
    const p = {
      query: { ...query, filter: { category: { _eq: 'x' } } },
      layoutOptions: null,
      stale: false,
      staleFields: [],
    };
    const once = afterFieldDeleted(p, 'category');
    expect(once).toMatchObject({ stale: true, staleFields: ['category'] });
    expect(afterFieldDeleted(once, 'category')).toEqual(once);
  });
});
