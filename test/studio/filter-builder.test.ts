import { describe, expect, it } from 'vitest';
import {
  emptyGroup,
  fromFilter,
  newCondition,
  OPERATOR_NAMES,
  toFilter,
  updateNode,
  type Group,
} from '../../studio/src/filter-builder.ts';

const group = (logic: '_and' | '_or', ...children: Group['children']): Group => ({
  ...emptyGroup(logic),
  children,
});
const types = { n: 'integer', price: 'decimal', done: 'boolean', title: 'string', data: 'json' };

describe('the filter builder maps to the JSON filter', () => {
  it('offers every operator of the spec', () => {
    expect(OPERATOR_NAMES.sort()).toEqual(
      [
        '_eq',
        '_neq',
        '_lt',
        '_lte',
        '_gt',
        '_gte',
        '_in',
        '_nin',
        '_null',
        '_nnull',
        '_contains',
        '_icontains',
        '_starts_with',
        '_ends_with',
        '_between',
        '_json_contains',
        '_has_key',
        '_has_any_keys',
        '_has_all_keys',
      ].sort(),
    );
  });

  it('is null for no condition, one object for one, _and/_or for several', () => {
    expect(toFilter(emptyGroup(), types)).toEqual({ filter: null, errors: [] });
    expect(toFilter(group('_and', newCondition('title', '_eq', 'Hi')), types).filter).toEqual({ title: { _eq: 'Hi' } });
    expect(toFilter(group('_or', newCondition('title', '_eq', 'Hi')), types).filter).toEqual({
      _or: [{ title: { _eq: 'Hi' } }],
    });
    expect(
      toFilter(
        group(
          '_and',
          newCondition('n', '_gte', '2'),
          group('_or', newCondition('done', '_eq', 'true'), newCondition('title', '_null')),
        ),
        types,
      ).filter,
    ).toEqual({ _and: [{ n: { _gte: 2 } }, { _or: [{ done: { _eq: true } }, { title: { _null: true } }] }] });
  });

  it('types values by the field: numbers and booleans as such, text kept as typed', () => {
    const one = (field: string, op: Parameters<typeof newCondition>[1], value: string) =>
      toFilter(group('_and', newCondition(field, op, value)), types).filter;
    expect(one('n', '_in', '1, 2,3')).toEqual({ n: { _in: [1, 2, 3] } });
    expect(one('price', '_between', '1.5, 10')).toEqual({ price: { _between: [1.5, 10] } });
    expect(one('title', '_eq', '007')).toEqual({ title: { _eq: '007' } });
    expect(one('title', '_nin', 'a,b')).toEqual({ title: { _nin: ['a', 'b'] } });
    expect(one('title', '_nnull', 'ignored')).toEqual({ title: { _nnull: true } });
    expect(one('data', '_json_contains', '{"a":[1]}')).toEqual({ data: { _json_contains: { a: [1] } } });
    expect(one('data', '_has_all_keys', 'a, 1')).toEqual({ data: { _has_all_keys: ['a', '1'] } });
    expect(one('data.size', '_gt', '3')).toEqual({ 'data.size': { _gt: 3 } });
    // Unknown field type: the API's own coercion of bracket values.
    expect(one('other', '_eq', 'false')).toEqual({ other: { _eq: false } });
    expect(one('other', '_eq', '012')).toEqual({ other: { _eq: '012' } });
  });

  it('reports each unusable condition by id and makes no filter then', () => {
    const noField = newCondition('', '_eq', 'x');
    const noValue = newCondition('title', '_eq', ' ');
    const badPair = newCondition('n', '_between', '1');
    const badJson = newCondition('data', '_json_contains', '{');
    const out = toFilter(group('_and', noField, noValue, badPair, badJson, newCondition('n', '_eq', '1')), types);
    expect(out.filter).toBeNull();
    expect(out.errors.map((e) => e.id)).toEqual([noField.id, noValue.id, badPair.id, badJson.id]);
  });

  it('reads a filter back into the builder, and refuses what it cannot show', () => {
    const f = { _or: [{ n: { _in: [1, 2] } }, { title: { _null: true }, done: { _eq: false } }] };
    const tree = fromFilter(f)!;
    expect(toFilter(tree, types).filter).toEqual({
      _or: [{ n: { _in: [1, 2] } }, { _and: [{ title: { _null: true } }, { done: { _eq: false } }] }],
    });
    expect(fromFilter({ title: { _regex: 'x' } })).toBeNull();
    expect(fromFilter({ _not: {} })).toBeNull();
    expect(fromFilter(null)!.children).toEqual([]);
  });

  it('edits the tree by node id', () => {
    const c = newCondition('title', '_eq', 'a');
    const root = group('_and', c);
    const changed = updateNode(root, c.id, (n) => ({ ...n, value: 'b' }) as typeof n);
    expect(toFilter(changed, types).filter).toEqual({ title: { _eq: 'b' } });
    expect(updateNode(root, c.id, () => null).children).toEqual([]);
  });
});
