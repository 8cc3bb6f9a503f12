import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { compileCondition, ConditionError, CONDITION_LIMITS } from './flow-condition.ts';
import type { DataChain } from './flow-template.ts';

const chain: DataChain = new Map<string, unknown>([
  ['$trigger', { status: 'published', views: 12, tags: ['a', 'b'], meta: { lang: 'vi', n: { x: 1 } }, none: null }],
  ['$last', { ok: true }],
  ['check', { code: 200 }],
]);
const holds = (f: object) => compileCondition(f).test(chain);

describe('compileCondition', () => {
  it('evaluates the filter operators over the data chain', () => {
    expect(holds({ '$trigger.status': { _eq: 'published' } })).toBe(true);
    expect(holds({ '$trigger.status': { _neq: 'published' } })).toBe(false);
    expect(holds({ '$trigger.views': { _gt: 10, _lte: 12 } })).toBe(true);
    expect(holds({ '$trigger.views': { _lt: '20' } })).toBe(false);
    expect(holds({ '$trigger.views': { _between: [10, 12] } })).toBe(true);
    expect(holds({ '$trigger.status': { _in: ['draft', 'published'] } })).toBe(true);
    expect(holds({ '$trigger.missing': { _nin: ['x'] } })).toBe(true);
    expect(holds({ '$trigger.none': { _null: true }, '$trigger.status': { _nnull: true } })).toBe(true);
    expect(holds({ '$trigger.status': { _contains: 'lish', _starts_with: 'pub', _ends_with: 'ed' } })).toBe(true);
    expect(holds({ '$trigger.status': { _icontains: 'PUB' } })).toBe(true);
    expect(holds({ '$trigger.meta': { _json_contains: { n: { x: 1 } } } })).toBe(true);
    expect(holds({ '$trigger.tags': { _json_contains: ['b'] } })).toBe(true);
    expect(
      holds({ '$trigger.meta': { _has_key: 'lang', _has_all_keys: ['lang', 'n'], _has_any_keys: ['q', 'n'] } }),
    ).toBe(true);
    expect(holds({ 'check.code': { _eq: 200 }, '$last.ok': { _eq: true } })).toBe(true);
    expect(holds({ _or: [{ '$trigger.views': { _eq: 1 } }, { '$trigger.views': { _eq: 12 } }] })).toBe(true);
    expect(holds({ _and: [{ '$trigger.views': { _eq: 12 } }, { '$last.ok': { _eq: false } }] })).toBe(false);
    expect(holds({ _or: [] })).toBe(false);
  });

  it('null and absent values match only _neq, _nin and _null', () => {
    for (const op of ['_eq', '_lt', '_gt', '_contains', '_in'] as const) {
      const arg = op === '_in' ? ['x'] : op === '_contains' ? 'x' : 1;
      expect(holds({ '$trigger.none': { [op]: arg } }), op).toBe(false);
    }
    expect(holds({ '$trigger.none': { _neq: 1 } })).toBe(true);
  });

  it('reads own properties only', () => {
    expect(holds({ '$trigger.tags.length': { _null: true } })).toBe(true);
    expect(holds({ '$trigger.meta.toString': { _null: true } })).toBe(true);
  });

  it('reads nested paths as the dotted ones, with _and/_or inside a path continuing it', () => {
    const pairs: [object, object][] = [
      [{ $trigger: { status: { _eq: 'published' } } }, { '$trigger.status': { _eq: 'published' } }],
      [{ $trigger: { meta: { n: { x: { _gte: 1 } } } } }, { '$trigger.meta.n.x': { _gte: 1 } }],
      [{ $trigger: { 'meta.lang': { _in: ['vi'] } } }, { '$trigger.meta.lang': { _in: ['vi'] } }],
      [
        { check: { code: { _eq: 200 } }, $last: { ok: { _eq: false } } },
        { 'check.code': { _eq: 200 }, '$last.ok': { _eq: false } },
      ],
      [
        { $trigger: { _or: [{ views: { _lt: 1 } }, { meta: { lang: { _eq: 'vi' } } }] } },
        { _or: [{ '$trigger.views': { _lt: 1 } }, { '$trigger.meta.lang': { _eq: 'vi' } }] },
      ],
      [
        { $trigger: { none: { _null: true }, status: { _nnull: true } } },
        { '$trigger.none': { _null: true }, '$trigger.status': { _nnull: true } },
      ],
    ];
    for (const [nested, dotted] of pairs) expect(holds(nested), JSON.stringify(nested)).toBe(holds(dotted));
    expect(compileCondition({ check: { code: { _eq: 1 } }, _or: [{ $last: { x: { _eq: 1 } } }] }).paths).toEqual([
      { head: 'check', segments: ['code'] },
      { head: '$last', segments: ['x'] },
    ]);
  });

  it('refuses what is not the filter language, with the path', () => {
    const refuse = (f: unknown, path: string[]) => {
      try {
        compileCondition(f);
      } catch (err) {
        expect(err).toBeInstanceOf(ConditionError);
        expect((err as ConditionError).path).toEqual(path);
        return;
      }
      throw new Error('accepted');
    };
    refuse({ '$trigger.a': { _like: 1 } }, ['$trigger.a', '_like']);
    refuse({ '$trigger.a': 1 }, ['$trigger.a']);
    refuse({ 'a b': { _eq: 1 } }, ['a b']);
    refuse({ '$trigger.a.b.c.d.e.f.g.h.i': { _eq: 1 } }, ['$trigger.a.b.c.d.e.f.g.h.i']);
    refuse({ _and: {} }, ['_and']);
    refuse({ '$trigger.a': { _between: [1] } }, ['$trigger.a', '_between']);
    refuse({ $trigger: { a: { b: 1 } } }, ['$trigger', 'a', 'b']);
    refuse({ _eq: 1 }, ['_eq']);
    refuse({ $trigger: { _or: [{ 'x.__proto__': { _eq: 1 } }] } }, ['$trigger', '_or', '0', 'x.__proto__']);
    for (const key of ['__proto__', 'constructor', 'prototype'])
      refuse({ [`$trigger.${key}`]: { _null: true } }, [`$trigger.${key}`]);
    refuse([], []);
    const many = Object.fromEntries(
      Array.from({ length: CONDITION_LIMITS.clauses + 1 }, (_, i) => [`$trigger.f${i}`, { _eq: 1 }]),
    );
    refuse(many, [`$trigger.f${CONDITION_LIMITS.clauses}`]);
    let deep: object = { '$last.x': { _eq: 1 } };
    for (let i = 0; i < 40; i++) deep = { _and: [deep] };
    expect(() => compileCondition(deep)).toThrow(/nested too deeply/);
  });

  it('agrees with its negation: _eq and _neq split every present value', () => {
    const value = fc.oneof(fc.integer(), fc.string(), fc.boolean(), fc.constant(null));
    fc.assert(
      fc.property(value, value, (v, arg) => {
        const c = new Map<string, unknown>([['$trigger', { v }]]);
        const eq = compileCondition({ '$trigger.v': { _eq: arg } }).test(c);
        const neq = compileCondition({ '$trigger.v': { _neq: arg } }).test(c);
        expect(eq || neq).toBe(true);
        if (v !== null) expect(eq).toBe(!neq);
      }),
    );
  });
});
